import { useQuery } from '@tanstack/react-query';
import {
  getSettingDefinitions,
  getSettings,
  SETTING_DEFINITIONS_KEY,
  type SettingDefinition,
  SETTINGS_KEY,
} from '../../api/settings';
import { LoadError } from '../common/LoadError';
import { SettingGroupForm } from './SettingGroupForm';

/**
 * Every setting of the user, each with the meaning and allowed values the API gives
 * (get_setting_definitions), one form per group so that a group is saved beside its fields.
 */
export function SettingsForms() {
  const definitions = useQuery({
    queryKey: SETTING_DEFINITIONS_KEY,
    queryFn: getSettingDefinitions,
    staleTime: Infinity,
  });
  const settings = useQuery({ queryKey: SETTINGS_KEY, queryFn: getSettings });
  const failed = definitions.error ?? settings.error;
  if (failed) {
    return (
      <LoadError
        error={failed}
        retry={() => Promise.all([definitions.refetch(), settings.refetch()])}
      />
    );
  }
  if (!definitions.data || !settings.data) {
    return <p role="status">Loading…</p>;
  }
  return (
    <section aria-labelledby="preferences-title">
      <h2 id="preferences-title">Settings</h2>
      <p className="intro">
        How smsgw sends, answers STOP and warns you. A group is saved with its own button.
      </p>
      <div className="setting-groups">
        {groupsOf(definitions.data).map(([group, members]) => (
          <SettingGroupForm
            key={group}
            group={group}
            definitions={members}
            settings={settings.data as Record<string, string>}
          />
        ))}
      </div>
    </section>
  );
}

/** The definitions by group, in the order the API lists them. */
function groupsOf(definitions: SettingDefinition[]): Array<[string, SettingDefinition[]]> {
  const groups = new Map<string, SettingDefinition[]>();
  for (const definition of definitions) {
    groups.set(definition.group, [...(groups.get(definition.group) ?? []), definition]);
  }
  return [...groups];
}
