import { NavLink } from 'react-router';

/** The two lists of the Phones page. */
export function PhonesTabs() {
  return (
    <nav className="phones-tabs" aria-label="Phones and phone groups">
      <ul>
        <li>
          <NavLink to="/phones" end>
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
