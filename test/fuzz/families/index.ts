import { Family } from '../support/runner';
import {
  bodyShapes,
  bracketAbuse,
  duplicateKeys,
  encodings,
  limits,
  wellFormedText,
} from './bodies';
import { numbersCsv } from './csv';
import { multipartNames, multipartStructure, multipartTruncated } from './multipart';
import { operationFamilies } from './operations';
import { auth, callbacks, mediaRoute, mediaUploads, unknownRoutes } from './routes';
import { sessionCsrf, sessionForged, sessionLogin } from './sessions';
import {
  expectHeader,
  hangUps,
  headerSize,
  noHost,
  rawChunked,
  rawHeaders,
  rawRequestLine,
} from './wire';

/**
 * Every family, in the order they run; FUZZ_ONLY takes these names. Those that delete entries
 * (delete_phone, delete_scheduled) come after the others, which use the entries made at set-up.
 * session-csrf signs in before session-login's failed sign-ins make this address wait.
 */
export const FAMILIES: Family[] = [
  auth,
  sessionCsrf,
  sessionForged,
  sessionLogin,
  ...operationFamilies.filter(({ name }) => !name.startsWith('op-delete')),
  bodyShapes,
  bracketAbuse,
  encodings,
  duplicateKeys,
  limits,
  wellFormedText,
  numbersCsv,
  multipartNames,
  multipartStructure,
  multipartTruncated,
  unknownRoutes,
  callbacks,
  mediaRoute,
  mediaUploads,
  rawRequestLine,
  rawHeaders,
  rawChunked,
  headerSize,
  noHost,
  expectHeader,
  hangUps,
  ...operationFamilies.filter(({ name }) => name.startsWith('op-delete')),
];
