import type { Contact } from './contacts';
import { answerOf, api, type paths } from './client';
import { type Cursor, listEntries, listEntryRows, type ListQuery } from './entries';

/**
 * A conditional group as get_conditional_group answers it, which is also how get_entries lists
 * them.
 */
export type ConditionalGroup = NonNullable<
  paths['/api/conditional_group/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

export interface ConditionalGroupFields {
  name: string;
  condition: string;
}

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

/** One page of conditional groups, filtered by get_entries' `name`, with its cursors. */
export async function listConditionalGroups(query: ListQuery): Promise<{
  groups: ConditionalGroup[];
  next: Cursor | null;
  prev: Cursor | null;
}> {
  const page = await listEntries('conditional_group', query);
  return { groups: page.entries as ConditionalGroup[], next: page.next, prev: page.prev };
}

export function getConditionalGroup(id: number): Promise<ConditionalGroup> {
  return answerOf(api.GET('/api/conditional_group/{id}', { params: { path: { id } } }));
}

export function createConditionalGroup(group: ConditionalGroupFields): Promise<number> {
  return answerOf(api.POST('/api/conditional_group', { body: group }));
}

export function updateConditionalGroup(
  id: number,
  group: Partial<ConditionalGroupFields>,
): Promise<ConditionalGroup> {
  return answerOf(
    api.POST('/api/conditional_group/{id}', { params: { path: { id } }, body: group }),
  );
}

export async function deleteConditionalGroup(id: number): Promise<void> {
  await answerOf(api.DELETE('/api/conditional_group/{id}', { params: { path: { id } } }));
}

/**
 * Page `page` of the caller's contacts `condition` selects now (get_conditional_group_preview),
 * and whether a page follows.
 */
export async function previewCondition(
  condition: string,
  page: number,
): Promise<{ contacts: Contact[]; hasNext: boolean }> {
  const call = api.GET('/api/conditional_group/preview', {
    params: { query: { condition, page } },
  });
  const contacts = await answerOf(call);
  const { data } = await call;
  return { contacts, hasNext: Boolean(data?.next) };
}
