import { useQuery } from '@tanstack/react-query';
import type { SelectHTMLAttributes } from 'react';
import { PAGE_SIZE } from '../../api/entries';
import { listPhoneGroups, PHONE_GROUPS_KEY } from '../../api/phone-groups';
import { listPhones, PHONES_KEY } from '../../api/phones';
import { LoadError } from '../common/LoadError';

/** Every page of a listing: a user has few phones and phone groups, but may have more than 25. */
async function allPages<T extends { id: number }>(
  load: (afterId?: number) => Promise<T[]>,
): Promise<T[]> {
  const all: T[] = [];
  let page = await load();
  all.push(...page);
  while (page.length === PAGE_SIZE) {
    page = await load(page[page.length - 1].id);
    all.push(...page);
  }
  return all;
}

/** The value of the choice of no phone: the dispatch chooses when it sends. */
export const AUTOMATIC = '';

/** A choice's value: `phone:<id>` or `group:<id>`, or AUTOMATIC. */
export function phoneChoice(value: string): { id_phone?: number; id_phone_group?: number } {
  const [kind, id] = value.split(':');
  if (kind === 'phone') {
    return { id_phone: Number(id) };
  }
  if (kind === 'group') {
    return { id_phone_group: Number(id) };
  }
  return {};
}

/** Every phone and phone group of the caller, read once for the page. */
export function usePhoneChoices() {
  const phones = useQuery({
    queryKey: [...PHONES_KEY, 'all'],
    queryFn: () => allPages(listPhones),
  });
  const groups = useQuery({
    queryKey: [...PHONE_GROUPS_KEY, 'all'],
    queryFn: () => allPages(listPhoneGroups),
  });
  return { phones, groups };
}

/** Automatic, one of the caller's phones, or one of their phone groups. */
export function PhoneSelect(props: SelectHTMLAttributes<HTMLSelectElement>) {
  const { phones, groups } = usePhoneChoices();
  const failed = phones.error ?? groups.error;
  return (
    <>
      <select {...props}>
        <option value={AUTOMATIC}>Automatic (smsgw chooses)</option>
        {phones.data && phones.data.length > 0 && (
          <optgroup label="Phones">
            {phones.data.map((phone) => (
              <option key={phone.id} value={`phone:${phone.id}`}>
                {phone.name}
                {phone.status && phone.status !== 'available' ? ` (${phone.status})` : ''}
              </option>
            ))}
          </optgroup>
        )}
        {groups.data && groups.data.length > 0 && (
          <optgroup label="Phone groups">
            {groups.data.map((group) => (
              <option key={group.id} value={`group:${group.id}`}>
                {group.name} ({group.nb_phone} {group.nb_phone === 1 ? 'phone' : 'phones'})
              </option>
            ))}
          </optgroup>
        )}
      </select>
      {failed && (
        <LoadError error={failed} retry={() => Promise.all([phones.refetch(), groups.refetch()])} />
      )}
    </>
  );
}
