/**
 * RaspiSMS's error codes, plus INTERNAL_ERROR
 * (docs/api-choices.md#envelope-errors-and-http-statuses).
 */
export enum ErrorCode {
  NONE = 0,
  INVALID_CREDENTIALS = 1,
  INVALID_PARAMETER = 2,
  MISSING_PARAMETER = 4,
  CANNOT_CREATE = 8,
  SUSPENDED_USER = 16,
  CANNOT_DELETE = 32,
  CANNOT_UPLOAD_FILE = 64,
  CANNOT_UPDATE = 128,
  INTERNAL_ERROR = 256,
}

/** Why the request failed, beyond its code: it decides the HTTP status (docs/api-choices.md). */
export type ErrorReason =
  | 'default'
  | 'not_found'
  | 'refused'
  | 'too_large'
  | 'unknown_route'
  | 'unavailable'
  | 'forbidden'
  | 'too_many_attempts'
  /** Another request is doing the same work right now (an idempotency key in use). */
  | 'conflict';

export const INVALID_CREDENTIALS_MESSAGE =
  'Invalid API Key. Please provide a valid API key as GET or POST parameter "api_key" or a HTTP "X-Api-Key".';

const PREFIXES: Record<ErrorCode, string> = {
  [ErrorCode.NONE]: '',
  [ErrorCode.INVALID_CREDENTIALS]: INVALID_CREDENTIALS_MESSAGE,
  [ErrorCode.INVALID_PARAMETER]: 'You have specified an invalid parameter : ',
  [ErrorCode.MISSING_PARAMETER]: 'One require parameter is missing : ',
  [ErrorCode.CANNOT_CREATE]: 'Cannot create a new entry.',
  [ErrorCode.SUSPENDED_USER]: 'This user account is currently suspended.',
  [ErrorCode.CANNOT_DELETE]: 'Cannot delete this entry.',
  [ErrorCode.CANNOT_UPLOAD_FILE]: 'Failed to upload or save an uploaded file : ',
  [ErrorCode.CANNOT_UPDATE]: 'Cannot update this entry : ',
  [ErrorCode.INTERNAL_ERROR]: 'Internal error.',
};

/**
 * Joins RaspiSMS's prefix and a detail: prefixes ending in ": " take it as is; after the others,
 * which end a sentence, the detail starts the next one with a capital, unless it starts with the
 * name of the parameter it concerns (`id : …`), which is kept as the client spells it.
 */
export function errorMessage(code: ErrorCode, detail?: string): string {
  const prefix = PREFIXES[code];
  if (!detail) {
    return prefix.replace(/ : $/, '');
  }
  if (prefix.endsWith(' ')) {
    return prefix + detail;
  }
  const sentence = PARAMETER_FIRST.test(detail)
    ? detail
    : detail.charAt(0).toUpperCase() + detail.slice(1);
  return `${prefix} ${sentence}`;
}

/** A detail naming its parameter first: `id : …`, `adapter_data[login] : …`. */
const PARAMETER_FIRST = /^[\w[\]]+ : /;

/** The one error type of the API: an error code, a detail naming the parameter, and a reason. */
export class ApiError extends Error {
  /** Response headers the answer carries, such as `Retry-After`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    readonly detail?: string,
    readonly reason: ErrorReason = 'default',
    options: { message?: string; headers?: Record<string, string> } = {},
  ) {
    super(options.message ?? errorMessage(code, detail));
    this.name = 'ApiError';
    this.headers = options.headers ?? {};
  }

  static invalid(detail: string): ApiError {
    return new ApiError(ErrorCode.INVALID_PARAMETER, detail);
  }

  static missing(detail: string): ApiError {
    return new ApiError(ErrorCode.MISSING_PARAMETER, detail);
  }

  /** The entry does not exist or is not the caller's: both look the same to the caller. */
  static notFound(code: ErrorCode, detail?: string): ApiError {
    return new ApiError(code, detail, 'not_found');
  }

  /** A creation, update or delete refused for a reason other than its parameters (HTTP 422). */
  static refused(
    code: ErrorCode.CANNOT_CREATE | ErrorCode.CANNOT_UPDATE | ErrorCode.CANNOT_DELETE,
    detail?: string,
  ) {
    return new ApiError(code, detail, 'refused');
  }

  static tooLarge(
    code: ErrorCode.CANNOT_UPLOAD_FILE | ErrorCode.INVALID_PARAMETER,
    detail: string,
  ) {
    return new ApiError(code, detail, 'too_large');
  }
}

/** The HTTP status of each error, by reason first, then by code (docs/api-choices.md). */
export function httpStatusOf(error: ApiError): number {
  switch (error.reason) {
    case 'not_found':
    case 'unknown_route':
      return 404;
    case 'refused':
      return 422;
    case 'too_large':
      return 413;
    case 'unavailable':
      return 503;
    case 'forbidden':
      return 403;
    case 'too_many_attempts':
      return 429;
    case 'conflict':
      return 409;
    case 'default':
      return httpStatusOfCode(error.code);
  }
}

function httpStatusOfCode(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.NONE:
      return 200;
    case ErrorCode.INVALID_CREDENTIALS:
      return 401;
    case ErrorCode.SUSPENDED_USER:
      return 403;
    case ErrorCode.INVALID_PARAMETER:
    case ErrorCode.MISSING_PARAMETER:
      return 400;
    case ErrorCode.CANNOT_CREATE:
    case ErrorCode.CANNOT_UPDATE:
      return 422;
    case ErrorCode.CANNOT_DELETE:
      return 404;
    case ErrorCode.CANNOT_UPLOAD_FILE:
      return 413;
    case ErrorCode.INTERNAL_ERROR:
      return 500;
  }
}
