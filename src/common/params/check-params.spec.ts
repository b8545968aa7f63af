import { checkParams } from './check-params';

const INVALID = 'You have specified an invalid parameter : ';

describe('checkParams', () => {
  it('accepts well-formed text at every depth the bracket syntax reaches', () => {
    expect(() =>
      checkParams({
        text: 'Hello 👋 é',
        numbers: [{ number: '+33612345678', data: { firstname: 'Zoë' } }],
        a: { b: { c: { d: { e: 'five levels' } } } },
        flash: true,
        volume: 3,
        nothing: null,
      }),
    ).not.toThrow();
  });

  it.each([
    [{ text: 'a\ud800b' }, 'text'],
    [{ text: '\udc00' }, 'text'],
    [{ adapter_data: { account_sid: 'AC\ud83d' } }, 'adapter_data[account_sid]'],
    [{ numbers: ['+33612345678', 'x\udfff'] }, 'numbers[1]'],
    [{ numbers: [{ data: { firstname: '\ud800' } }] }, 'numbers[0][data][firstname]'],
  ])(
    'refuses a lone surrogate in a value, naming the parameter as a form would',
    (params, name) => {
      expect(() => checkParams(params)).toThrow(
        `${INVALID}${name} : the text is not valid Unicode (it holds a lone UTF-16 surrogate).`,
      );
    },
  );

  it('refuses a lone surrogate in a name, shown as U+FFFD', () => {
    expect(() => checkParams({ adapter_data: { ['a\ud800']: 'x' } })).toThrow(
      `${INVALID}adapter_data[a\ufffd] : the parameter name is not valid Unicode (it holds a lone UTF-16 surrogate).`,
    );
    expect(() => checkParams({ ['\udc00']: 'x' })).toThrow(`${INVALID}\ufffd : the parameter name`);
  });

  it('refuses values nested deeper than 5 levels, lists and maps alike', () => {
    expect(() => checkParams({ a: [[[[[['x']]]]]] })).toThrow(
      `${INVALID}a[0][0][0][0][0] : values are nested deeper than 5 levels.`,
    );
    expect(() => checkParams({ a: { b: { c: { d: { e: { f: { g: 'x' } } } } } } })).toThrow(
      `${INVALID}a[b][c][d][e][f] : values are nested deeper than 5 levels.`,
    );
  });

  it('stops at the depth limit, whatever the depth below it', () => {
    let deep: unknown = 'x';
    for (let level = 0; level < 200_000; level += 1) {
      deep = [deep];
    }

    expect(() => checkParams({ deep })).toThrow(/values are nested deeper than 5 levels/);
  });
});
