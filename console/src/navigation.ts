/** The console's pages after sign-in, in the order of its navigation. */
export const PAGES = [
  { path: 'dashboard', title: 'Dashboard' },
  { path: 'send', title: 'Send' },
  { path: 'conversations', title: 'Conversations' },
  { path: 'messages', title: 'Messages' },
  { path: 'contacts', title: 'Contacts and groups' },
  { path: 'phones', title: 'Phones' },
  { path: 'webhooks', title: 'Webhooks' },
  { path: 'settings', title: 'Settings and account' },
] as const;

export type PagePath = (typeof PAGES)[number]['path'];

export const SIGN_IN_PATH = '/sign-in';
export const HOME_PATH = '/dashboard';
