import type { paths } from './client';
import { listEntryRows } from './entries';

/** A group as get_group answers it, which is also how get_entries lists groups. */
export type Group = NonNullable<
  paths['/api/group/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

export const GROUPS_KEY = ['groups'] as const;

/** A page of the caller's groups whose name holds `name` (all when empty), after `afterId`. */
export async function searchGroups(name: string, afterId?: number): Promise<Group[]> {
  return (await listEntryRows('group', { name: name || undefined, after_id: afterId })) as Group[];
}
