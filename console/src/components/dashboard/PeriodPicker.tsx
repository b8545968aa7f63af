import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import type { Period } from '../../api/stats';
import { Field } from '../forms/Field';
import { lastDays } from './period';

const PRESETS = [7, 30, 90] as const;

/** The period the dashboard shows: two days, or one of the usual spans up to today. */
export function PeriodPicker({
  period,
  choose,
}: {
  period: Period;
  choose: (period: Period) => void;
}) {
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<Period>({ defaultValues: period });
  // The address can change the period too (back, a bookmark): the fields follow it.
  useEffect(() => reset(period), [period.start, period.end, reset]);
  return (
    <form
      className="period-picker"
      onSubmit={(event) => void handleSubmit(choose)(event)}
      aria-label="Period"
    >
      <Field
        label="From"
        error={errors.start?.message}
        render={(props) => (
          <input
            type="date"
            {...props}
            {...register('start', { required: 'Choose a first day.' })}
          />
        )}
      />
      <Field
        label="To"
        error={errors.end?.message}
        render={(props) => (
          <input
            type="date"
            {...props}
            {...register('end', {
              required: 'Choose a last day.',
              validate: (end, { start }) =>
                end >= start || 'The last day cannot come before the first.',
            })}
          />
        )}
      />
      <button type="submit">Show</button>
      <div className="presets" role="group" aria-label="Usual periods">
        {PRESETS.map((days) => (
          <button
            key={days}
            type="button"
            className="secondary"
            onClick={() => choose(lastDays(days))}
          >
            Last {days} days
          </button>
        ))}
      </div>
    </form>
  );
}
