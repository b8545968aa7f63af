import { ApiError } from '../common/errors/api-error';
import { Deferred } from '../common/params/deferred';
import { nameKey, parseEntryName, requireEntryName } from '../common/params/entry-name';
import { parseIdSet } from '../common/params/id-list';
import { Params, parseId } from '../common/params/parse';

/** A group's name as stored: trimmed, with the key its uniqueness compares. */
export interface GroupName {
  name: string;
  nameKey: string;
}

/** post_group's parameters (docs/api.md#post_group): rules 1 and 2, parsed at the edge. */
export interface CreateGroupInput extends GroupName {
  /** Without repeats, not yet known to be the caller's (rule 4). */
  contactIds: number[];
}

/** post_update_group's changes; a field not sent is undefined and keeps its value. */
export interface GroupChanges {
  name?: GroupName;
  /** Replaces every member when sent; `contacts=` empties the group. */
  contactIds?: number[];
}

/** post_update_group's parameters: rule 2 waits for rule 1 to find the group. */
export interface UpdateGroupInput {
  id: number;
  changes: Deferred<GroupChanges>;
}

export interface GroupIdInput {
  id: number;
}

export function parseCreateGroupParams(params: Params): CreateGroupInput {
  // Rule 1.
  const name = requireEntryName(params.name);
  // Rule 2.
  return {
    name,
    nameKey: nameKey(name),
    contactIds: parseIdSet(params.contacts, 'contacts') ?? [],
  };
}

export function parseUpdateGroupParams(params: Params): UpdateGroupInput {
  return {
    id: requiredId(params.id),
    changes: Deferred.parse(() => {
      const name = parseEntryName(params.name);
      return {
        name: name === undefined ? undefined : { name, nameKey: nameKey(name) },
        contactIds: parseIdSet(params.contacts, 'contacts'),
      };
    }),
  };
}

export function parseGroupIdParams(params: Params): GroupIdInput {
  return { id: requiredId(params.id) };
}

function requiredId(value: unknown): number {
  const id = parseId(value, 'id');
  if (id === undefined) {
    throw ApiError.missing('id is required: the id of one of your groups.');
  }
  return id;
}
