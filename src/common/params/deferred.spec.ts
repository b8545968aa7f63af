import { ApiError } from '../errors/api-error';
import { Deferred } from './deferred';

describe('Deferred', () => {
  it('gives the parsed value', () => {
    expect(Deferred.parse(() => 42).get()).toBe(42);
  });

  it('keeps a parameter error until its rule is reached, then throws that very error', () => {
    const error = ApiError.invalid('name must be a text.');
    const deferred = Deferred.parse(() => {
      throw error;
    });

    expect(() => deferred.get()).toThrow(error);
  });

  it('lets any other error through at once: it is a bug, not a parameter', () => {
    expect(() =>
      Deferred.parse(() => {
        throw new TypeError('boom');
      }),
    ).toThrow(TypeError);
  });
});
