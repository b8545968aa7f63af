import type { paths } from './client';
import { listEntryRows } from './entries';

/**
 * A conditional group as get_conditional_group answers it, which is also how get_entries lists
 * them.
 */
export type ConditionalGroup = NonNullable<
  paths['/api/conditional_group/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

export const CONDITIONAL_GROUPS_KEY = ['conditional-groups'] as const;

/**
 * A page of the caller's conditional groups whose name holds `name` (all when empty), after
 * `afterId`.
 */
export async function searchConditionalGroups(
  name: string,
  afterId?: number,
): Promise<ConditionalGroup[]> {
  const entries = await listEntryRows('conditional_group', {
    name: name || undefined,
    after_id: afterId,
  });
  return entries as ConditionalGroup[];
}
