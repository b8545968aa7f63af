import { answerOf, api, type paths } from './client';
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

export async function readPhoneGroup(id: number): Promise<PhoneGroup> {
  return answerOf(api.GET('/api/phone_group/{id}', { params: { path: { id } } }));
}

/** What post_phone_group and post_update_phone_group take. */
export interface PhoneGroupWrite {
  name?: string;
  phones?: number[];
}

export async function createPhoneGroup(group: PhoneGroupWrite & { name: string }): Promise<number> {
  return answerOf(api.POST('/api/phone_group', { body: group }));
}

export async function updatePhoneGroup(id: number, changes: PhoneGroupWrite): Promise<PhoneGroup> {
  return answerOf(api.POST('/api/phone_group/{id}', { params: { path: { id } }, body: changes }));
}

export async function deletePhoneGroup(id: number): Promise<void> {
  await answerOf(api.DELETE('/api/phone_group/{id}', { params: { path: { id } } }));
}
