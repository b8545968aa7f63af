import { Link, NavLink, useLocation } from 'react-router';

const SECTIONS = [
  { to: '/contacts/groups', label: 'Groups' },
  { to: '/contacts/conditional-groups', label: 'Conditional groups' },
  { to: '/contacts/import', label: 'Import CSV' },
] as const;

/**
 * The sections of the page. Contacts are its root, so their tab is current wherever no other
 * section is (a contact's own page included).
 */
export function ContactTabs() {
  const { pathname } = useLocation();
  const inSection = SECTIONS.some(({ to }) => pathname.startsWith(to));
  return (
    <nav className="section-tabs" aria-label="Contacts and groups">
      <ul>
        <li>
          <Link
            to="/contacts"
            className={inSection ? undefined : 'active'}
            aria-current={pathname === '/contacts' ? 'page' : undefined}
          >
            Contacts
          </Link>
        </li>
        {SECTIONS.map(({ to, label }) => (
          <li key={to}>
            <NavLink to={to}>{label}</NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
