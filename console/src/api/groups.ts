import type { paths } from './client';
import { listEntries } from './entries';

/** A group as get_group answers it, which is also how get_entries lists groups. */
export type Group = NonNullable<
  paths['/api/group/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

export const GROUPS_KEY = ['groups'] as const;

/** A page of the caller's groups, by id, after `afterId`. */
export async function listGroups(afterId?: number): Promise<Group[]> {
  return (await listEntries('group', { after_id: afterId })) as Group[];
}
