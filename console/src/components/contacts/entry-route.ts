import { useParams } from 'react-router';

/** The id of the entry a route shows; NaN when the path holds none. */
export function useEntryId(): number {
  const { id } = useParams();
  return id !== undefined && /^\d+$/.test(id) ? Number(id) : Number.NaN;
}
