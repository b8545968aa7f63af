import { NavLink, useLocation } from 'react-router';

/** The two lists of the Phones page; a phone's or a group's page keeps its list's tab current. */
export function PhonesTabs() {
  const inGroups = useLocation().pathname.includes('/phones/groups');
  return (
    <nav className="phones-tabs" aria-label="Phones and phone groups">
      <ul>
        <li>
          <NavLink to="/phones" end className={inGroups ? undefined : () => 'active'}>
            Phones
          </NavLink>
        </li>
        <li>
          <NavLink to="/phones/groups">Phone groups</NavLink>
        </li>
      </ul>
    </nav>
  );
}
