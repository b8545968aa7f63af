import { ApiError } from '../../src/common/errors/api-error';

/** The ApiError `action` throws; another error, or none, fails the test. */
export function thrownApiError(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) {
      return error;
    }
    throw error;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}
