import { ApiError } from '../common/errors/api-error';
import { isAbsent, Params, parseId } from '../common/params/parse';
import { ReceivedStatus } from './entities/received.entity';

const STATUSES: readonly ReceivedStatus[] = ['read', 'unread'];

/** get_received and delete_received: the `id` (absent or empty is no entry of the caller's). */
export function parseReceivedIdParams(params: Params): { id?: number } {
  return { id: parseId(params.id, 'id') };
}

/** post_update_received's parameters (docs/api.md#post_update_received), rule 1 checked. */
export interface ReceivedStatusInput {
  id?: number;
  status: ReceivedStatus;
}

export function parseReceivedStatusParams(params: Params): ReceivedStatusInput {
  const id = parseId(params.id, 'id');
  // Rule 1.
  if (isAbsent(params.status)) {
    throw ApiError.missing('status : "read" or "unread" is required.');
  }
  if (!STATUSES.includes(params.status as ReceivedStatus)) {
    throw ApiError.invalid('status must be "read" or "unread".');
  }
  return { id, status: params.status as ReceivedStatus };
}
