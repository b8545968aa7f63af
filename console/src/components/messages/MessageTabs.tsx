import { NavLink } from 'react-router';

/** The three lists of the Messages page; a message's detail keeps its list's tab current. */
export function MessageTabs() {
  return (
    <nav className="section-tabs" aria-label="Message lists">
      <ul>
        <li>
          <NavLink to="/messages/sent">Sent</NavLink>
        </li>
        <li>
          <NavLink to="/messages/received">Received</NavLink>
        </li>
        <li>
          <NavLink to="/messages/scheduled">Scheduled</NavLink>
        </li>
      </ul>
    </nav>
  );
}
