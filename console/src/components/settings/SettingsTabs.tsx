import { NavLink } from 'react-router';

/** The four parts of the Settings page. */
export function SettingsTabs() {
  return (
    <nav className="settings-tabs" aria-label="Settings and account">
      <ul>
        <li>
          <NavLink to="/settings/preferences">Settings</NavLink>
        </li>
        <li>
          <NavLink to="/settings/stop-list">STOP list</NavLink>
        </li>
        <li>
          <NavLink to="/settings/password">Password</NavLink>
        </li>
        <li>
          <NavLink to="/settings/api-key">API key</NavLink>
        </li>
      </ul>
    </nav>
  );
}
