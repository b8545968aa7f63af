import { answerOf, api, type paths } from './client';
import { type Cursor, listEntries, listEntryRows, type ListQuery } from './entries';

/** A group as get_group answers it, which is also how get_entries lists groups. */
export type Group = NonNullable<
  paths['/api/group/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

/** A group's name and its members' ids, as post_group and post_update_group take them. */
export interface GroupFields {
  name: string;
  contacts: number[];
}

export const GROUPS_KEY = ['groups'] as const;

/** A page of the caller's groups whose name holds `name` (all when empty), after `afterId`. */
export async function searchGroups(name: string, afterId?: number): Promise<Group[]> {
  return (await listEntryRows('group', { name: name || undefined, after_id: afterId })) as Group[];
}

/** One page of groups, filtered by get_entries' `name`, with its cursors. */
export async function listGroups(
  query: ListQuery,
): Promise<{ groups: Group[]; next: Cursor | null; prev: Cursor | null }> {
  const page = await listEntries('group', query);
  return { groups: page.entries as Group[], next: page.next, prev: page.prev };
}

export function getGroup(id: number): Promise<Group> {
  return answerOf(api.GET('/api/group/{id}', { params: { path: { id } } }));
}

export function createGroup(group: GroupFields): Promise<number> {
  return answerOf(api.POST('/api/group', { body: group }));
}

/** post_update_group: `contacts`, when sent, replaces every member. */
export function updateGroup(id: number, group: Partial<GroupFields>): Promise<Group> {
  return answerOf(api.POST('/api/group/{id}', { params: { path: { id } }, body: group }));
}

export async function deleteGroup(id: number): Promise<void> {
  await answerOf(api.DELETE('/api/group/{id}', { params: { path: { id } } }));
}
