import { answerOf, api, type paths } from './client';

/** The caller's settings, values as stored (strings). */
export type Settings = NonNullable<
  paths['/api/setting']['get']['responses'][200]['content']['application/json']['response']
>;

export const SETTINGS_KEY = ['settings'] as const;

export function getSettings(): Promise<Settings> {
  return answerOf(api.GET('/api/setting'));
}

/** Whether a flag setting is on (`"1"`). */
export function isOn(settings: Settings | undefined, name: keyof Settings): boolean {
  return settings?.[name] === '1';
}
