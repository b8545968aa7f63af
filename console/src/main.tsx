import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { forgetSession, isSessionLost } from './api/session';
import { SIGN_IN_PATH } from './navigation';
import { createConsoleRouter } from './router';
import './styles.css';

const router = createConsoleRouter();

/**
 * A request refused for want of a session (it expired, or ended elsewhere) sends the person to
 * sign in, and sign-in brings them back to the page they were on. The cache is dropped: it held
 * the previous session's data, and whoever signs in next may be someone else.
 */
function onError(error: unknown) {
  const { pathname, search } = router.state.location;
  if (!isSessionLost(error) || pathname === SIGN_IN_PATH) {
    return;
  }
  forgetSession();
  queryClient.clear();
  void router.navigate(`${SIGN_IN_PATH}?next=${encodeURIComponent(pathname + search)}`, {
    replace: true,
  });
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

const root = document.getElementById('root');
if (!root) {
  throw new Error('The page has no #root element.');
}
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
