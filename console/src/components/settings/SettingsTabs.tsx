import { SectionTabs } from '../common/SectionTabs';

const TABS = [
  { to: '/settings/preferences', label: 'Settings' },
  { to: '/settings/stop-list', label: 'STOP list' },
  { to: '/settings/password', label: 'Password' },
  { to: '/settings/api-key', label: 'API key' },
] as const;

/** The four parts of the Settings page. */
export function SettingsTabs() {
  return <SectionTabs label="Settings and account" tabs={TABS} className="settings-tabs" />;
}
