import { useQuery } from '@tanstack/react-query';
import {
  listPhoneGroups,
  listPhones,
  type Phone,
  PHONE_GROUPS_KEY,
  PHONES_KEY,
} from '../../api/entries';

function nameIn(list: Phone[] | undefined, what: string) {
  return (id: number | null): string => {
    if (id === null) {
      return '—';
    }
    return list?.find((item) => item.id === id)?.name ?? `${what} ${id}`;
  };
}

/** A phone's name by its id, once the caller's phones are loaded (its id until then). */
export function usePhoneName(): (id: number | null) => string {
  const phones = useQuery({ queryKey: PHONES_KEY, queryFn: listPhones });
  return nameIn(phones.data, 'Phone');
}

/** A phone group's name by its id, as usePhoneName. */
export function usePhoneGroupName(): (id: number | null) => string {
  const groups = useQuery({ queryKey: PHONE_GROUPS_KEY, queryFn: listPhoneGroups });
  return nameIn(groups.data, 'Phone group');
}
