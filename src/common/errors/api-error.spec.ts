import {
  ApiError,
  ErrorCode,
  ErrorReason,
  INVALID_CREDENTIALS_MESSAGE,
  errorMessage,
  httpStatusOf,
} from './api-error';

describe('ErrorCode (RaspiSMS’s codes, plus INTERNAL_ERROR)', () => {
  it('has RaspiSMS’s numeric codes', () => {
    expect({ ...ErrorCode }).toMatchObject({
      NONE: 0,
      INVALID_CREDENTIALS: 1,
      INVALID_PARAMETER: 2,
      MISSING_PARAMETER: 4,
      CANNOT_CREATE: 8,
      SUSPENDED_USER: 16,
      CANNOT_DELETE: 32,
      CANNOT_UPLOAD_FILE: 64,
      CANNOT_UPDATE: 128,
      INTERNAL_ERROR: 256,
    });
  });
});

describe('errorMessage (RaspiSMS’s prefixes, then a detail naming the parameter)', () => {
  it('gives the exact 401 text asking for api_key or X-Api-Key', () => {
    expect(INVALID_CREDENTIALS_MESSAGE).toBe(
      'Invalid API Key. Please provide a valid API key as GET or POST parameter "api_key" or a HTTP "X-Api-Key".',
    );
    expect(errorMessage(ErrorCode.INVALID_CREDENTIALS)).toBe(INVALID_CREDENTIALS_MESSAGE);
  });

  it.each([
    [ErrorCode.INVALID_PARAMETER, 'You have specified an invalid parameter'],
    [ErrorCode.MISSING_PARAMETER, 'One require parameter is missing'],
    [ErrorCode.CANNOT_CREATE, 'Cannot create a new entry.'],
    [ErrorCode.SUSPENDED_USER, 'This user account is currently suspended.'],
    [ErrorCode.CANNOT_DELETE, 'Cannot delete this entry.'],
    [ErrorCode.CANNOT_UPLOAD_FILE, 'Failed to upload or save an uploaded file'],
    [ErrorCode.CANNOT_UPDATE, 'Cannot update this entry'],
    [ErrorCode.INTERNAL_ERROR, 'Internal error.'],
  ])('code %p without a detail is %p, with no dangling " : "', (code, expected) => {
    expect(errorMessage(code)).toBe(expected);
    expect(errorMessage(code, '')).toBe(expected);
  });

  it.each([
    [
      ErrorCode.INVALID_PARAMETER,
      'id_phone must be a non-negative integer.',
      'You have specified an invalid parameter : id_phone must be a non-negative integer.',
    ],
    [ErrorCode.MISSING_PARAMETER, 'to text', 'One require parameter is missing : to text'],
    [
      ErrorCode.CANNOT_CREATE,
      'The adapter test failed.',
      'Cannot create a new entry. The adapter test failed.',
    ],
    [ErrorCode.CANNOT_DELETE, 'No such entry.', 'Cannot delete this entry. No such entry.'],
    [
      ErrorCode.CANNOT_UPLOAD_FILE,
      'medias : the file is too large.',
      'Failed to upload or save an uploaded file : medias : the file is too large.',
    ],
    [
      ErrorCode.CANNOT_UPDATE,
      'No phone with this id.',
      'Cannot update this entry : No phone with this id.',
    ],
    [ErrorCode.INTERNAL_ERROR, 'Request id: abc-123', 'Internal error. Request id: abc-123'],
  ])('code %p with detail %p is %p', (code, detail, expected) => {
    expect(errorMessage(code, detail)).toBe(expected);
  });

  it('starts a detail after a prefix that ends a sentence with a capital', () => {
    expect(errorMessage(ErrorCode.CANNOT_CREATE, 'the twilio adapter refused adapter_data.')).toBe(
      'Cannot create a new entry. The twilio adapter refused adapter_data.',
    );
    expect(errorMessage(ErrorCode.INTERNAL_ERROR, 'request id: abc')).toBe(
      'Internal error. Request id: abc',
    );
  });

  it('keeps a parameter named first as it is spelt, and what follows " : " as it is', () => {
    expect(errorMessage(ErrorCode.CANNOT_DELETE, 'id : you have no phone 3.')).toBe(
      'Cannot delete this entry. id : you have no phone 3.',
    );
    expect(errorMessage(ErrorCode.CANNOT_CREATE, 'adapter_data[from] : refused.')).toBe(
      'Cannot create a new entry. adapter_data[from] : refused.',
    );
    expect(errorMessage(ErrorCode.CANNOT_UPDATE, 'the phone is disabled.')).toBe(
      'Cannot update this entry : the phone is disabled.',
    );
  });

  it('gives the suspended text alone', () => {
    expect(errorMessage(ErrorCode.SUSPENDED_USER)).toBe(
      'This user account is currently suspended.',
    );
  });
});

describe('ApiError', () => {
  it('is an Error whose message is the envelope message', () => {
    const error = new ApiError(ErrorCode.CANNOT_UPDATE, 'No phone with this id.');

    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ApiError');
    expect(error.code).toBe(ErrorCode.CANNOT_UPDATE);
    expect(error.detail).toBe('No phone with this id.');
    expect(error.reason).toBe('default');
    expect(error.message).toBe('Cannot update this entry : No phone with this id.');
  });

  it('builds invalid and missing parameter errors with the default reason', () => {
    const invalid = ApiError.invalid('page must be an integer.');
    const missing = ApiError.missing('text');

    expect([invalid.code, invalid.reason, invalid.message]).toEqual([
      ErrorCode.INVALID_PARAMETER,
      'default',
      'You have specified an invalid parameter : page must be an integer.',
    ]);
    expect([missing.code, missing.reason, missing.message]).toEqual([
      ErrorCode.MISSING_PARAMETER,
      'default',
      'One require parameter is missing : text',
    ]);
  });

  it('builds not-found and too-large errors with their reasons', () => {
    const notFound = ApiError.notFound(ErrorCode.CANNOT_DELETE);
    const tooLarge = ApiError.tooLarge(ErrorCode.CANNOT_UPLOAD_FILE, 'medias : too large.');

    expect([notFound.code, notFound.reason, notFound.message]).toEqual([
      ErrorCode.CANNOT_DELETE,
      'not_found',
      'Cannot delete this entry.',
    ]);
    expect([tooLarge.code, tooLarge.reason]).toEqual([ErrorCode.CANNOT_UPLOAD_FILE, 'too_large']);
  });

  it('builds refused creations and updates, answered with HTTP 422', () => {
    const refused = ApiError.refused(ErrorCode.CANNOT_UPDATE, 'the phone is disabled.');

    expect([refused.code, refused.reason, refused.message]).toEqual([
      ErrorCode.CANNOT_UPDATE,
      'refused',
      'Cannot update this entry : the phone is disabled.',
    ]);
    expect(httpStatusOf(refused)).toBe(422);
  });
});

describe('httpStatusOf (docs/api-choices.md status table)', () => {
  it.each([
    [ErrorCode.NONE, 200],
    [ErrorCode.INVALID_CREDENTIALS, 401],
    [ErrorCode.INVALID_PARAMETER, 400],
    [ErrorCode.MISSING_PARAMETER, 400],
    [ErrorCode.CANNOT_CREATE, 422],
    [ErrorCode.SUSPENDED_USER, 403],
    [ErrorCode.CANNOT_DELETE, 404],
    [ErrorCode.CANNOT_UPLOAD_FILE, 413],
    [ErrorCode.CANNOT_UPDATE, 422],
    [ErrorCode.INTERNAL_ERROR, 500],
  ])('gives code %p with no particular reason HTTP %p', (code, status) => {
    expect(httpStatusOf(new ApiError(code))).toBe(status);
  });

  it('covers every code of the enum', () => {
    const codes = Object.values(ErrorCode).filter((value) => typeof value === 'number');

    expect(codes).toHaveLength(10);
    for (const code of codes) {
      expect(httpStatusOf(new ApiError(code))).toBeGreaterThanOrEqual(200);
    }
  });

  it.each<[ErrorReason, ErrorCode, number]>([
    ['not_found', ErrorCode.CANNOT_DELETE, 404],
    ['not_found', ErrorCode.CANNOT_UPDATE, 404],
    ['refused', ErrorCode.CANNOT_CREATE, 422],
    ['refused', ErrorCode.CANNOT_UPDATE, 422],
    ['too_large', ErrorCode.CANNOT_UPLOAD_FILE, 413],
    ['too_large', ErrorCode.INVALID_PARAMETER, 413],
    ['unknown_route', ErrorCode.INVALID_PARAMETER, 404],
    ['unavailable', ErrorCode.INTERNAL_ERROR, 503],
    ['refused', ErrorCode.INVALID_PARAMETER, 422],
    ['conflict', ErrorCode.CANNOT_CREATE, 409],
    ['default', ErrorCode.INVALID_PARAMETER, 400],
  ])(
    'gives reason %p (code %p) HTTP %p, whatever the code alone would give',
    (reason, code, status) => {
      expect(httpStatusOf(new ApiError(code, 'detail', reason))).toBe(status);
    },
  );

  it('lets the reason win over the code', () => {
    expect(httpStatusOf(new ApiError(ErrorCode.CANNOT_UPDATE))).toBe(422);
    expect(httpStatusOf(ApiError.notFound(ErrorCode.CANNOT_UPDATE))).toBe(404);
    expect(httpStatusOf(ApiError.invalid('x'))).toBe(400);
    expect(httpStatusOf(ApiError.tooLarge(ErrorCode.INVALID_PARAMETER, 'x'))).toBe(413);
  });
});
