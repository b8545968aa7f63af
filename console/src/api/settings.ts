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

/** One setting's meaning and allowed values, as post_setting checks them. */
export type SettingDefinition = NonNullable<
  paths['/api/setting/definitions']['get']['responses'][200]['content']['application/json']['response']
>[number];

export const SETTING_DEFINITIONS_KEY = ['setting-definitions'] as const;

export function getSettingDefinitions(): Promise<SettingDefinition[]> {
  return answerOf(api.GET('/api/setting/definitions'));
}

/** Changes the settings given (all or none: one bad value refuses them all); every setting after. */
export function changeSettings(changes: Record<string, string>): Promise<Settings> {
  return answerOf(api.POST('/api/setting', { body: changes }));
}
