import { Link, Navigate, Route, Routes } from 'react-router';
import { ApiKeyPanel } from '../components/settings/ApiKeyPanel';
import { PasswordForm } from '../components/settings/PasswordForm';
import { SettingsForms } from '../components/settings/SettingsForms';
import { SettingsTabs } from '../components/settings/SettingsTabs';
import { StopList } from '../components/settings/StopList';
import './Settings.css';

/** The user's settings, their STOP list, their password and their API key. */
export default function Settings() {
  return (
    <section className="settings" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings and account</h1>
      <SettingsTabs />
      <Routes>
        <Route index element={<Navigate to="preferences" replace />} />
        <Route path="preferences" element={<SettingsForms />} />
        <Route path="stop-list" element={<StopList />} />
        <Route path="password" element={<PasswordForm />} />
        <Route path="api-key" element={<ApiKeyPanel />} />
        <Route
          path="*"
          element={
            <p>
              No such part of the settings. <Link to="/settings/preferences">See the settings</Link>
              .
            </p>
          }
        />
      </Routes>
    </section>
  );
}
