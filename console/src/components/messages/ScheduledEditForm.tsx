import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { type ScheduledMessage, type ScheduledUpdate, updateScheduled } from '../../api/scheduled';
import { Field, FormError } from '../forms/Field';
import { showApiError } from '../forms/api-errors';

interface Values {
  text: string;
  at: string;
  numbers: string;
  tag: string;
  flash: boolean;
}

const FIELDS = ['text', 'at', 'numbers', 'tag', 'flash'] as const;

/** The API's limit on a message's text (post_scheduled rule 3), shown as the text is typed. */
const TEXT_LIMIT = 1000;

/** The API writes `YYYY-MM-DD HH:MM:SS`, a datetime-local input `YYYY-MM-DDTHH:MM:SS`. */
const toInput = (at: string) => at.replace(' ', 'T');
const fromInput = (value: string) =>
  (/T\d{2}:\d{2}$/.test(value) ? `${value}:00` : value).replace('T', ' ');

function valuesOf(message: ScheduledMessage): Values {
  return {
    text: message.text,
    at: toInput(message.at),
    numbers: message.numbers.map((number) => number.number).join('\n'),
    tag: message.tag ?? '',
    flash: message.flash,
  };
}

/**
 * Changes a message the dispatch has not taken yet: post_update_scheduled with the fields
 * changed only, so that what the form does not show (its phone, its contacts and groups) stays.
 * The API's refusal is shown at the field it names; once the dispatch has taken the message it
 * refuses the change, and the form shows that.
 */
export function ScheduledEditForm({
  message,
  onSaved,
}: {
  message: ScheduledMessage;
  onSaved: (saved: ScheduledMessage) => unknown;
}) {
  const [dropped, setDropped] = useState<string[]>([]);
  const {
    register,
    handleSubmit,
    reset,
    setError,
    watch,
    formState: { errors, dirtyFields, isDirty },
  } = useForm<Values>({ defaultValues: valuesOf(message) });
  const save = useMutation({
    mutationFn: (update: ScheduledUpdate) => updateScheduled(message.id, update),
    onSuccess: async (saved, update) => {
      setDropped(droppedNumbers(update, saved));
      reset(valuesOf(saved));
      await onSaved(saved);
    },
    onError: (error) => showApiError<Values>(error, FIELDS, setError),
  });

  function submit(values: Values) {
    const update: ScheduledUpdate = {};
    if (dirtyFields.text) {
      update.text = values.text;
    }
    if (dirtyFields.at) {
      update.at = fromInput(values.at);
    }
    if (dirtyFields.numbers) {
      update.numbers = numbersOf(values.numbers, message);
    }
    if (dirtyFields.tag) {
      update.tag = values.tag.trim();
    }
    if (dirtyFields.flash) {
      update.flash = values.flash;
    }
    setDropped([]);
    save.mutate(update);
  }

  const length = [...watch('text')].length;
  return (
    <form
      className="scheduled-edit"
      onSubmit={(event) => void handleSubmit(submit)(event)}
      noValidate
    >
      <Field
        label="Text"
        error={errors.text?.message}
        hint={
          <span className={length > TEXT_LIMIT ? 'over-limit' : undefined}>
            {length} of {TEXT_LIMIT} characters
          </span>
        }
        render={(props) => <textarea {...props} {...register('text')} rows={5} />}
      />
      <Field
        label="Send at"
        error={errors.at?.message}
        render={(props) => <input {...props} {...register('at')} type="datetime-local" step={1} />}
      />
      <Field
        label="Numbers"
        error={errors.numbers?.message}
        hint="One number a line; a number kept keeps its template data."
        render={(props) => <textarea {...props} {...register('numbers')} rows={3} />}
      />
      <Field
        label="Tag"
        error={errors.tag?.message}
        render={(props) => <input {...props} {...register('tag')} />}
      />
      <div className="field checkbox">
        <label>
          <input type="checkbox" {...register('flash')} /> Flash (shown at once, not stored)
        </label>
        {errors.flash?.message && (
          <p className="error" role="alert">
            {errors.flash.message}
          </p>
        )}
      </div>
      <FormError errors={errors} />
      {save.isSuccess && !isDirty && (
        <p role="status" className="saved">
          Saved.
          {dropped.length > 0 &&
            ` The API dropped ${dropped.length === 1 ? 'a number it could not read' : 'numbers it could not read'}: ${dropped.join(', ')}.`}
        </p>
      )}
      <button type="submit" disabled={save.isPending || !isDirty}>
        {save.isPending ? 'Saving…' : 'Save changes'}
      </button>
    </form>
  );
}

/**
 * The numbers of the form's lines, each with the template data the message had for it, so that
 * changing the list does not drop the data of the numbers kept.
 */
function numbersOf(
  lines: string,
  message: ScheduledMessage,
): NonNullable<ScheduledUpdate['numbers']> {
  return lines
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((number) => {
      const kept = message.numbers.find((stored) => stored.number === number);
      return kept ? { number, data: kept.data } : number;
    });
}

/** The numbers sent that the API dropped as invalid (post_scheduled rule 7). */
function droppedNumbers(update: ScheduledUpdate, saved: ScheduledMessage): string[] {
  if (!update.numbers) {
    return [];
  }
  const sent = update.numbers.map((number) =>
    typeof number === 'string' ? number : number.number,
  );
  // The API stores numbers in E.164: one typed otherwise is kept under another spelling.
  const digits = (number: string) => number.replace(/\D/g, '');
  const stored = saved.numbers.map((number) => digits(number.number));
  return sent.filter((number) => {
    const significant = digits(number).replace(/^0+/, '');
    return significant === '' || !stored.some((kept) => kept.endsWith(significant));
  });
}
