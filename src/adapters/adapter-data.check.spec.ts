import { thrownApiError } from '../../test/support/api-errors';
import { ErrorCode } from '../common/errors/api-error';
import { checkAdapterData, refuseUnknownFields } from './adapter-data.check';
import { AdapterDescriptor } from './adapter.descriptor';

/** A provider with a required secret, a required number and an optional field. */
const PROVIDER: AdapterDescriptor = {
  id: 'provider',
  alias: null,
  name: 'Provider',
  description: 'A provider of the tests',
  fields: [
    { name: 'token', description: 'API token.', required: true, secret: true },
    { name: 'number', description: 'Sender number', required: true, number: true },
    { name: 'callback', description: 'Callback URL', required: false },
  ],
  hideData: true,
};

describe('refuseUnknownFields', () => {
  it("accepts the descriptor's fields, sent or not", () => {
    expect(() => refuseUnknownFields(PROVIDER, {})).not.toThrow();
    expect(() => refuseUnknownFields(PROVIDER, { token: 'a', callback: '' })).not.toThrow();
  });

  it("refuses a field the adapter does not have, naming it and listing the adapter's fields", () => {
    const error = thrownApiError(() => refuseUnknownFields(PROVIDER, { token: 'a', tokn: 'b' }));
    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toBe(
      'You have specified an invalid parameter : adapter_data[tokn] : the provider adapter has ' +
        'no such field; its fields are token, number and callback.',
    );
  });

  it('names every unknown field at once, even an empty one', () => {
    const error = thrownApiError(() => refuseUnknownFields(PROVIDER, { a: 'x', b: '' }));
    expect(error.message).toMatch(/: adapter_data\[a\], adapter_data\[b\] : the provider adapter/);
  });

  it('says so when the adapter takes no data at all', () => {
    const error = thrownApiError(() =>
      refuseUnknownFields({ ...PROVIDER, fields: [] }, { a: 'x' }),
    );
    expect(error.message).toBe(
      'You have specified an invalid parameter : adapter_data[a] : the provider adapter takes no ' +
        'adapter_data.',
    );
  });
});

describe('checkAdapterData', () => {
  const valid = { token: 'secret', number: '+33612345678' };

  it("keeps only the descriptor's fields (stored data may hold others)", () => {
    expect(checkAdapterData(PROVIDER, { ...valid, extra: 'dropped', callback: 'x' }, '')).toEqual({
      ...valid,
      callback: 'x',
    });
  });

  it('takes JSON numbers and booleans as their text', () => {
    expect(checkAdapterData(PROVIDER, { ...valid, callback: 12 }, '')).toEqual({
      ...valid,
      callback: '12',
    });
  });

  it('refuses a field value that is an object', () => {
    const error = thrownApiError(() =>
      checkAdapterData(PROVIDER, { ...valid, callback: { a: 1 } }, ''),
    );
    expect(error.message).toMatch(/adapter_data\[callback\] must be a text/);
  });

  it.each([undefined, '', '  ', null])(
    'rule 5: a required field that is %p is MISSING_PARAMETER naming it and its description',
    (token) => {
      const error = thrownApiError(() => checkAdapterData(PROVIDER, { ...valid, token }, ''));
      expect(error.code).toBe(ErrorCode.MISSING_PARAMETER);
      expect(error.message).toBe(
        'One require parameter is missing : adapter_data[token] (API token) is required by the provider adapter.',
      );
    },
  );

  it('rule 5: every missing required field is named at once', () => {
    const error = thrownApiError(() => checkAdapterData(PROVIDER, { callback: 'x' }, ''));
    expect(error.code).toBe(ErrorCode.MISSING_PARAMETER);
    expect(error.message).toBe(
      'One require parameter is missing : adapter_data[token] (API token) and ' +
        'adapter_data[number] (Sender number) are required by the provider adapter.',
    );
  });

  it('rule 5 comes before rule 6: a missing number is MISSING_PARAMETER', () => {
    const error = thrownApiError(() => checkAdapterData(PROVIDER, { token: 'secret' }, ''));
    expect(error.code).toBe(ErrorCode.MISSING_PARAMETER);
    expect(error.message).toMatch(/adapter_data\[number\]/);
  });

  it('rule 6: an invalid number field is INVALID_PARAMETER naming it', () => {
    const error = thrownApiError(() =>
      checkAdapterData(PROVIDER, { ...valid, number: '12345' }, ''),
    );
    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toMatch(
      /^You have specified an invalid parameter : adapter_data\[number\] must be a valid phone number/,
    );
  });

  it('rule 6: a number field is stored in E.164', () => {
    expect(checkAdapterData(PROVIDER, { ...valid, number: '+33 6 12 34 56 78' }, '')).toEqual(
      valid,
    );
  });

  it("rule 6: a national number is read in the user's default country", () => {
    expect(checkAdapterData(PROVIDER, { ...valid, number: '06 12 34 56 78' }, 'fr')).toEqual(valid);
    expect(
      thrownApiError(() => checkAdapterData(PROVIDER, { ...valid, number: '06 12 34 56 78' }, ''))
        .code,
    ).toBe(ErrorCode.INVALID_PARAMETER);
  });

  it('rule 6: an optional number field that is empty is INVALID_PARAMETER, as the rule says', () => {
    const optionalNumber: AdapterDescriptor = {
      ...PROVIDER,
      fields: [{ name: 'from', description: 'Sender', required: false, number: true }],
    };
    expect(thrownApiError(() => checkAdapterData(optionalNumber, {}, '')).code).toBe(
      ErrorCode.INVALID_PARAMETER,
    );
  });
});
