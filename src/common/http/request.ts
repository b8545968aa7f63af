import type { Request } from 'express';

/** The caller, as authentication found it; settings are loaded once per request. */
export interface AuthenticatedUser {
  id: number;
  email: string;
  admin: boolean;
  /**
   * The key the caller presented: `next` / `prev` links carry it. None for a caller signed in
   * with a session: keys are stored as hashes, and the cookie authenticates the links.
   */
  apiKey?: string;
  settings: Record<string, string>;
}

export interface UploadedFile {
  fieldname: string;
  originalname: string;
  mimetype: string;
  path: string;
  size: number;
}

/** The console session a request was authenticated with. */
export interface RequestSession {
  id: number;
  csrfToken: string;
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  createdAt: string;
  lastUsedAt: string;
}

export type ApiRequest = Request & {
  id?: string | number;
  user?: AuthenticatedUser;
  session?: RequestSession;
  files?: UploadedFile[];
};
