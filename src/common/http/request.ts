import type { Request } from 'express';

/** The caller, as authentication found it; settings are loaded once per request. */
export interface AuthenticatedUser {
  id: number;
  email: string;
  admin: boolean;
  /** The key the caller presented: `next` / `prev` links carry it. */
  apiKey: string;
  settings: Record<string, string>;
}

export interface UploadedFile {
  fieldname: string;
  originalname: string;
  mimetype: string;
  path: string;
  size: number;
}

export type ApiRequest = Request & {
  id?: string | number;
  user?: AuthenticatedUser;
  files?: UploadedFile[];
};
