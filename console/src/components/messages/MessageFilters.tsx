import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { listPhones, PHONES_KEY } from '../../api/entries';
import { Field, FormError } from '../forms/Field';
import { useQueryStringForm } from '../forms/useQueryStringForm';
import { FILTERS, type FilterName, type MessageKind, useFilterValues } from './list-query';

type Values = Record<FilterName, string>;

const STATUSES: Partial<Record<MessageKind, readonly string[]>> = {
  sent: ['delivered', 'failed', 'unknown'],
  received: ['unread', 'read'],
};

const LABELS: Record<FilterName, string> = {
  status: 'Status',
  id_phone: 'Phone',
  destination: 'To number',
  origin: 'From number',
  tag: 'Tag',
  originating_scheduled: 'Scheduled message',
  at_from: 'From day',
  at_to: 'To day',
};

/*
 * The API compares `at` with whole datetimes; the form asks for days, the first second of the
 * first day to the last second of the last.
 */
const DAY_BOUNDS: Partial<Record<FilterName, string>> = {
  at_from: ' 00:00:00',
  at_to: ' 23:59:59',
};

function toForm(name: FilterName, value: string | undefined): string {
  return value && DAY_BOUNDS[name] ? value.slice(0, 10) : (value ?? '');
}

function toQuery(name: FilterName, value: string): string {
  return DAY_BOUNDS[name] && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value + DAY_BOUNDS[name] : value;
}

/**
 * The filters of a list, kept in the page's query string. A filter the API refuses shows the
 * API's message at that filter, unfolded.
 */
export function MessageFilters({ kind, error }: { kind: MessageKind; error: Error | null }) {
  const names = FILTERS[kind];
  const current = useFilterValues(kind);
  const phones = useQuery({ queryKey: PHONES_KEY, queryFn: listPhones });
  const active = Object.keys(current).length;
  // Open where there is room, and wherever filters are on; folded on a phone, above its list.
  const [open, setOpen] = useState(
    () => active > 0 || window.matchMedia('(min-width: 40rem)').matches,
  );
  const defaults = Object.fromEntries(
    names.map((name) => [name, toForm(name, current[name])]),
  ) as Values;
  const { register, errors, onSubmit, clear } = useQueryStringForm<Values>({
    names,
    defaults,
    error,
    onError: () => setOpen(true),
    toQuery,
  });

  const statuses = STATUSES[kind];
  return (
    <details
      className="message-filters"
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>Filters{active > 0 && ` (${active} on)`}</summary>
      <form onSubmit={onSubmit} aria-label="Filters">
        <div className="filter-fields">
          {names.map((name) => (
            <Field
              key={name}
              label={LABELS[name]}
              error={errors[name]?.message}
              render={(props) =>
                name === 'status' && statuses ? (
                  <select {...props} {...register(name)}>
                    <option value="">Any</option>
                    {statuses.map((status) => (
                      <option key={status} value={status}>
                        {status}
                      </option>
                    ))}
                  </select>
                ) : name === 'id_phone' ? (
                  <select {...props} {...register(name)}>
                    <option value="">Any</option>
                    {phones.data?.map((phone) => (
                      <option key={phone.id} value={phone.id}>
                        {phone.name}
                      </option>
                    ))}
                    {current.id_phone &&
                      !phones.data?.some((p) => String(p.id) === current.id_phone) && (
                        <option value={current.id_phone}>Phone {current.id_phone}</option>
                      )}
                  </select>
                ) : (
                  <input
                    {...props}
                    {...register(name)}
                    type={DAY_BOUNDS[name] ? 'date' : 'text'}
                    inputMode={
                      name === 'originating_scheduled'
                        ? 'numeric'
                        : name === 'destination' || name === 'origin'
                          ? 'tel'
                          : undefined
                    }
                  />
                )
              }
            />
          ))}
        </div>
        <FormError errors={errors} />
        <div className="filter-actions">
          <button type="submit">Apply filters</button>
          <button type="button" className="secondary" onClick={clear}>
            Clear
          </button>
        </div>
      </form>
    </details>
  );
}
