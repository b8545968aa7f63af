import { useEffect, useId, useState } from 'react';
import { useFormContext } from 'react-hook-form';
import type { NewScheduled } from '../../api/scheduled';
import { Field } from '../forms/Field';

/** The longest validity post_scheduled takes, in minutes: 7 days. */
const MAX_VALIDITY_MINUTES = 10_080;

/** The delivery options of the Send form, as its fields hold them. */
export interface DeliveryFields {
  priority: 'normal' | 'high';
  /** Minutes as typed; empty is no limit. */
  validity: string;
  /** The user's send_window setting, any time (`none`), or the window typed in `window`. */
  window_choice: 'setting' | 'none' | 'this';
  window: string;
}

export const DELIVERY_DEFAULTS: DeliveryFields = {
  priority: 'normal',
  validity: '',
  window_choice: 'setting',
  window: '',
};

/** The delivery fields the API's messages name. */
export const DELIVERY_API_FIELDS = ['priority', 'validity', 'window'] as const;

/** The options as post_scheduled takes them: only those that differ from the API's defaults. */
export function deliveryOf(
  fields: DeliveryFields,
): Pick<NewScheduled, 'priority' | 'validity' | 'window'> {
  const validity = fields.validity.trim();
  return {
    priority: fields.priority === 'high' ? 'high' : undefined,
    validity: validity === '' ? undefined : Number(validity),
    window:
      fields.window_choice === 'none'
        ? 'none'
        : fields.window_choice === 'this'
          ? fields.window.trim()
          : undefined,
  };
}

/** The choices that differ from the defaults, in a few words each. */
function summaryOf(fields: DeliveryFields): string {
  const validity = fields.validity.trim();
  return [
    fields.priority === 'high' ? 'high priority' : '',
    validity === '' ? '' : `valid ${validity} ${validity === '1' ? 'minute' : 'minutes'}`,
    fields.window_choice === 'none' ? 'any time' : '',
    fields.window_choice === 'this' && fields.window.trim() !== ''
      ? `only ${fields.window.trim()}`
      : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The message's priority, validity and send window, folded away behind a summary of what differs
 * from the defaults; it opens by itself when the API refuses one of them, so that the error shows.
 * Inside a FormProvider of a form whose fields include DeliveryFields.
 */
export function DeliveryOptions() {
  const {
    formState: { errors },
    register,
    watch,
  } = useFormContext<DeliveryFields>();
  const priorityHint = `${useId()}-hint`;
  const [open, setOpen] = useState(false);
  const refused = Boolean(errors.priority ?? errors.validity ?? errors.window);
  useEffect(() => {
    if (refused) {
      setOpen(true);
    }
  }, [refused]);
  const fields = watch();
  const summary = summaryOf(fields);
  const windowError = errors.window?.message;

  return (
    <details
      className="delivery"
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>
        Delivery options
        {summary && <span className="delivery-summary">: {summary}</span>}
      </summary>
      <div className="delivery-body">
        <fieldset className="choices priority" aria-describedby={priorityHint}>
          <legend>Priority</legend>
          <div className="options">
            <label>
              <input type="radio" value="normal" {...register('priority')} /> Normal
            </label>
            <label>
              <input type="radio" value="high" {...register('priority')} /> High
            </label>
          </div>
          <small id={priorityHint} className="hint">
            High goes ahead of campaigns: for one-time codes and alerts.
          </small>
          {errors.priority && (
            <p className="error" role="alert">
              {errors.priority.message}
            </p>
          )}
        </fieldset>
        <Field
          label="Validity in minutes"
          error={errors.validity?.message}
          hint={`Empty: no limit. At most ${MAX_VALIDITY_MINUTES} (7 days), counted from the time it is due; not sent by then, it is recorded as failed (expired).`}
          render={(props) => (
            <input
              {...props}
              type="number"
              inputMode="numeric"
              min={1}
              max={MAX_VALIDITY_MINUTES}
              step={1}
              {...register('validity')}
            />
          )}
        />
        <fieldset className="choices">
          <legend>Send window</legend>
          <label>
            <input type="radio" value="setting" {...register('window_choice')} /> My usual window
            (from my settings)
          </label>
          <label>
            <input type="radio" value="none" {...register('window_choice')} /> Any time
          </label>
          <label>
            <input type="radio" value="this" {...register('window_choice')} /> Only in this window
          </label>
          {fields.window_choice === 'this' ? (
            <Field
              label="Window"
              error={windowError}
              hint="Days and hours in the time zone of your settings, as mon-fri 08:00-20:00, sat 10:00-18:00."
              render={(props) => (
                <input
                  {...props}
                  type="text"
                  {...register('window', {
                    validate: (value, all) =>
                      all.window_choice !== 'this' ||
                      value.trim() !== '' ||
                      'Write the days and hours, or choose another send window.',
                  })}
                />
              )}
            />
          ) : (
            windowError && (
              <p className="error" role="alert">
                {windowError}
              </p>
            )
          )}
        </fieldset>
      </div>
    </details>
  );
}
