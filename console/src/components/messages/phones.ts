import { useQuery } from '@tanstack/react-query';
import { listPhones, PHONES_KEY } from '../../api/entries';

/** A phone's name by its id, once the caller's phones are loaded (its id until then). */
export function usePhoneName(): (id: number | null) => string {
  const phones = useQuery({ queryKey: PHONES_KEY, queryFn: listPhones });
  return (id) => {
    if (id === null) {
      return '—';
    }
    return phones.data?.find((phone) => phone.id === id)?.name ?? `Phone ${id}`;
  };
}
