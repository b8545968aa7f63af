import { Params, parseId } from '../common/params/parse';

/** get_sended and delete_sended: the `id` (absent or empty is no entry of the caller's). */
export function parseSendedIdParams(params: Params): { id?: number } {
  return { id: parseId(params.id, 'id') };
}
