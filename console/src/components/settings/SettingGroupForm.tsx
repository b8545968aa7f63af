import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useForm, type UseFormRegisterReturn } from 'react-hook-form';
import { changeSettings, type SettingDefinition, SETTINGS_KEY } from '../../api/settings';
import { type ControlProps, Field, FormError } from '../forms/Field';
import { SavedNote, SubmitButton } from '../forms/SubmitButton';
import { useApiMutation } from '../forms/useApiMutation';
import { SettingHint } from './SettingHint';

/** A form's values by setting name: a flag's checkbox, or the text of any other control. */
type Values = Record<string, string | boolean>;

/** PHP's `(int) value` truthiness, as the API reads its flags: `"1"` on, `"0"` and `""` off. */
function isOn(value: string | undefined): boolean {
  const number = parseInt(value ?? '', 10);
  return !Number.isNaN(number) && number !== 0;
}

function valuesOf(definitions: SettingDefinition[], settings: Record<string, string>): Values {
  return Object.fromEntries(
    definitions.map((definition) => {
      const value = settings[definition.name] ?? definition.default;
      return [definition.name, definition.type === 'flag' ? isOn(value) : value];
    }),
  );
}

/** The longest text written on one line (send_window's 255); a longer one gets a text area. */
const MAX_LINE_CHARACTERS = 255;

/** The control of a setting other than a flag, with the API's bounds. */
function control(definition: SettingDefinition, props: ControlProps & UseFormRegisterReturn) {
  switch (definition.type) {
    case 'choice':
      return (
        <select {...props}>
          {(definition.choices ?? []).map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      );
    case 'number':
      return (
        <input
          {...props}
          type="number"
          inputMode={definition.decimals ? 'decimal' : 'numeric'}
          min={definition.minimum ?? undefined}
          max={definition.maximum ?? undefined}
          step={definition.decimals ? 10 ** -definition.decimals : 1}
        />
      );
    default:
      return (definition.max_length ?? MAX_LINE_CHARACTERS + 1) <= MAX_LINE_CHARACTERS ? (
        <input {...props} type="text" maxLength={definition.max_length ?? undefined} />
      ) : (
        <textarea {...props} rows={3} maxLength={definition.max_length ?? undefined} />
      );
  }
}

/**
 * The settings of one group: a flag as a checkbox, a choice as a select, a number as a number
 * input with the API's bounds, a text as a text input or, when long, a text area. Only the
 * settings changed are sent; the API's refusal is shown at the setting it names (it refuses the
 * whole request).
 */
export function SettingGroupForm({
  group,
  definitions,
  settings,
}: {
  group: string;
  definitions: SettingDefinition[];
  settings: Record<string, string>;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const names = definitions.map((definition) => definition.name);
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors, dirtyFields, isDirty },
  } = useForm<Values>({ defaultValues: valuesOf(definitions, settings) });
  const save = useApiMutation({
    mutationFn: changeSettings,
    onSuccess: (saved) => {
      queryClient.setQueryData(SETTINGS_KEY, saved);
      reset(valuesOf(definitions, saved));
    },
    fields: names,
    setError,
  });

  function submit(values: Values) {
    const changes: Record<string, string> = {};
    for (const name of names) {
      if (dirtyFields[name]) {
        const value = values[name];
        changes[name] = typeof value === 'boolean' ? (value ? '1' : '0') : value;
      }
    }
    save.mutate(changes);
  }

  return (
    <form
      className="setting-group"
      aria-labelledby={`${id}-title`}
      onSubmit={(event) => void handleSubmit(submit)(event)}
      noValidate
    >
      <h3 id={`${id}-title`}>{group}</h3>
      {definitions.map((definition) => {
        const error = errors[definition.name]?.message;
        const hint = <SettingHint definition={definition} />;
        switch (definition.type) {
          case 'flag':
            return (
              <div key={definition.name} className="field checkbox">
                <label>
                  <input
                    type="checkbox"
                    aria-invalid={Boolean(error)}
                    aria-describedby={`${id}-${definition.name}-hint${error ? ` ${id}-${definition.name}-error` : ''}`}
                    {...register(definition.name)}
                  />{' '}
                  {definition.label}
                </label>
                <small id={`${id}-${definition.name}-hint`} className="hint">
                  {hint}
                </small>
                {error && (
                  <p id={`${id}-${definition.name}-error`} className="error" role="alert">
                    {error}
                  </p>
                )}
              </div>
            );
          default:
            return (
              <Field
                key={definition.name}
                label={definition.label}
                error={error}
                hint={hint}
                render={(props) => control(definition, { ...props, ...register(definition.name) })}
              />
            );
        }
      })}
      <FormError errors={errors} />
      {save.isSuccess && !isDirty && <SavedNote />}
      <SubmitButton
        label="Save"
        pendingLabel="Saving…"
        pending={save.isPending}
        disabled={!isDirty}
      />
    </form>
  );
}
