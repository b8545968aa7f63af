import type { ComponentType } from 'react';
import { createBrowserRouter, Link, Navigate } from 'react-router';
import { HOME_PATH, PAGES, type PagePath, SIGN_IN_PATH } from './navigation';

/**
 * Each page's module, loaded when the page is first opened: the first load carries only React,
 * the router and TanStack Query, and a page's libraries (the dashboard's charts) come with it.
 * A page not built yet shows its title.
 */
const PAGE_MODULES: Partial<Record<PagePath, () => Promise<{ default: ComponentType }>>> = {
  dashboard: () => import('./pages/Dashboard'),
  send: () => import('./pages/Send'),
  conversations: () => import('./pages/Conversations'),
  messages: () => import('./pages/Messages'),
  contacts: () => import('./pages/Contacts'),
  webhooks: () => import('./pages/Webhooks'),
  settings: () => import('./pages/Settings'),
  phones: () => import('./pages/Phones'),
};

export function createConsoleRouter() {
  return createBrowserRouter(
    [
      {
        path: SIGN_IN_PATH,
        lazy: async () => ({ Component: (await import('./pages/SignIn')).SignIn }),
      },
      {
        path: '/',
        lazy: async () => ({
          Component: (await import('./components/layout/ConsoleLayout')).ConsoleLayout,
        }),
        children: [
          { index: true, element: <Navigate to={HOME_PATH} replace /> },
          ...PAGES.map((page) => ({
            path: `${page.path}/*`,
            lazy: async () => {
              const load = PAGE_MODULES[page.path];
              if (load) {
                return { Component: (await load()).default };
              }
              const { Placeholder } = await import('./pages/Placeholder');
              return { element: <Placeholder title={page.title} /> };
            },
          })),
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
    { basename: basePath() },
  );
}

/** Where smsgw mounts the console (its BASE_PATH), which the server writes in the page's `<base>`. */
function basePath(): string {
  return new URL(document.baseURI).pathname.replace(/\/$/, '');
}

function NotFound() {
  return (
    <section>
      <h1>No page here</h1>
      <p>
        <Link to={HOME_PATH}>Go to the dashboard</Link>
      </p>
    </section>
  );
}
