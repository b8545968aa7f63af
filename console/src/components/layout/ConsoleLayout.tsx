import { useQuery } from '@tanstack/react-query';
import { Navigate, NavLink, Outlet, useLocation } from 'react-router';
import { ApiError } from '../../api/client';
import { getSession, SESSION_KEY } from '../../api/session';
import { PAGES, SIGN_IN_PATH } from '../../navigation';

/**
 * The frame of every page after sign-in: the navigation and the page. Without a session it
 * sends the person to sign in, and sign-in brings them back here.
 */
export function ConsoleLayout() {
  const location = useLocation();
  const session = useQuery({ queryKey: SESSION_KEY, queryFn: getSession });

  if (session.isPending) {
    return <p className="status">Loading…</p>;
  }
  if (session.isError) {
    if (session.error instanceof ApiError && session.error.status === 401) {
      const next = `${location.pathname}${location.search}`;
      return <Navigate to={`${SIGN_IN_PATH}?next=${encodeURIComponent(next)}`} replace />;
    }
    return (
      <p className="status" role="alert">
        {session.error.message}
      </p>
    );
  }
  return (
    <div className="layout">
      <header className="layout-header">
        <span className="brand">smsgw</span>
        <span className="user">{session.data.user.email}</span>
      </header>
      <nav className="layout-nav" aria-label="Pages">
        <ul>
          {PAGES.map((page) => (
            <li key={page.path}>
              <NavLink to={`/${page.path}`}>{page.title}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main className="layout-main">
        <Outlet />
      </main>
    </div>
  );
}
