import { answerOf, api, type paths } from './client';

/** An adapter as get_adapters describes it: the form of a phone is built from its fields. */
export type AdapterDescription = NonNullable<
  paths['/api/adapter']['get']['responses'][200]['content']['application/json']['response']
>[number];

export type AdapterField = AdapterDescription['fields'][number];

export const ADAPTERS_KEY = ['adapters'] as const;

export async function listAdapters(): Promise<AdapterDescription[]> {
  return answerOf(api.GET('/api/adapter'));
}
