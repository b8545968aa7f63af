import { ApiError } from '../common/errors/api-error';
import { Deferred } from '../common/params/deferred';
import { parseEntryName, requireEntryName } from '../common/params/entry-name';
import { parseIdSet } from '../common/params/id-list';
import { Params, parseId } from '../common/params/parse';

/** post_phone_group's parameters (docs/api.md#post_phone_group), rules 1 and 2. */
export interface CreatePhoneGroupInput {
  name: string;
  phones: number[];
}

/** The fields an update changes; one not sent is undefined and keeps its stored value. */
export interface PhoneGroupChanges {
  name?: string;
  /** The phones replacing the group's; [] empties it. */
  phones?: number[];
}

/**
 * post_update_phone_group's parameters (docs/api.md#post_update_phone_group): rule 1 looks the
 * group up before rule 2 reads the changes.
 */
export interface UpdatePhoneGroupInput {
  id: number;
  changes: Deferred<PhoneGroupChanges>;
}

/** The id of one phone group (read one, delete). */
export interface PhoneGroupIdInput {
  id: number;
}

export function parseCreatePhoneGroupParams(params: Params): CreatePhoneGroupInput {
  // Rule 1.
  const name = requireEntryName(params.name);
  // Rule 2.
  return { name, phones: parseIdSet(params.phones, 'phones') ?? [] };
}

export function parseUpdatePhoneGroupParams(params: Params): UpdatePhoneGroupInput {
  return {
    id: requiredId(params.id),
    changes: Deferred.parse(() => ({
      name: parseEntryName(params.name),
      phones: parseIdSet(params.phones, 'phones'),
    })),
  };
}

export function parsePhoneGroupIdParams(params: Params): PhoneGroupIdInput {
  return { id: requiredId(params.id) };
}

function requiredId(value: unknown): number {
  const id = parseId(value, 'id');
  if (id === undefined) {
    throw ApiError.missing('id is required: the id of one of your phone groups.');
  }
  return id;
}
