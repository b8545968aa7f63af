import type { paths } from './client';
import { listEntryRows } from './entries';

/** A phone group as get_phone_group answers it, which is also how get_entries lists them. */
export type PhoneGroup = NonNullable<
  paths['/api/phone_group/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

export const PHONE_GROUPS_KEY = ['phone-groups'] as const;

/** A page of the caller's phone groups, by id, after `afterId`. */
export async function listPhoneGroups(afterId?: number): Promise<PhoneGroup[]> {
  return (await listEntryRows('phone_group', { after_id: afterId })) as PhoneGroup[];
}
