import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { getSession, isSessionLost, logout, SESSION_KEY } from '../../api/session';
import { PAGES, SIGN_IN_PATH } from '../../navigation';
import { LoadError } from '../common/LoadError';

/**
 * The frame of every page after sign-in: the navigation and the page. Without a session it
 * sends the person to sign in, and sign-in brings them back here.
 */
export function ConsoleLayout() {
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Checked again when the person comes back to the tab and every minute, so that a session
  // that expired (or was ended elsewhere) sends them to sign in before they type anything.
  const session = useQuery({
    queryKey: SESSION_KEY,
    queryFn: getSession,
    refetchOnWindowFocus: true,
    refetchInterval: 60_000,
  });
  const signOut = useMutation({
    mutationFn: logout,
    onSuccess: async () => {
      queryClient.clear();
      await navigate(SIGN_IN_PATH, { replace: true });
    },
  });

  if (session.isPending) {
    return <p className="status">Loading…</p>;
  }
  if (session.isError && isSessionLost(session.error)) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`${SIGN_IN_PATH}?next=${encodeURIComponent(next)}`} replace />;
  }
  if (session.data === undefined) {
    return (
      <main className="status">
        <h1>smsgw</h1>
        {session.error && <LoadError error={session.error} retry={session.refetch} />}
      </main>
    );
  }
  return (
    <div className="layout">
      <header className="layout-header">
        <span className="brand">smsgw</span>
        <span className="user">{session.data.user.email}</span>
        <button
          type="button"
          className="sign-out"
          onClick={() => signOut.mutate()}
          disabled={signOut.isPending}
        >
          Sign out
        </button>
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
        {session.error && <LoadError error={session.error} retry={session.refetch} />}
        {signOut.isError && (
          <p className="error" role="alert">
            {signOut.error.message}
          </p>
        )}
        <Outlet />
      </main>
    </div>
  );
}
