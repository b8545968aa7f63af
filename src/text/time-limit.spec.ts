import { runWithin, TimeLimitExceeded } from './time-limit';

describe('runWithin', () => {
  it("returns the work's result", () => {
    expect(runWithin(1000, () => 42)).toBe(42);
  });

  it("passes the work's own error on", () => {
    const failure = new RangeError('bad');
    expect(() =>
      runWithin(1000, () => {
        throw failure;
      }),
    ).toThrow(failure);
  });

  it('stops a loop that never ends', () => {
    expect(() =>
      runWithin(20, () => {
        for (;;) {
          // Spins until the watchdog stops it.
        }
      }),
    ).toThrow(TimeLimitExceeded);
  });

  it('stops a regular expression that backtracks without end', () => {
    expect(() => runWithin(20, () => /^(a+)+$/.test(`${'a'.repeat(40)}!`))).toThrow(
      TimeLimitExceeded,
    );
  });

  it('can run again after stopping work', () => {
    expect(() => runWithin(20, () => /^(a|a)+$/.test(`${'a'.repeat(40)}!`))).toThrow(
      TimeLimitExceeded,
    );
    expect(runWithin(1000, () => 'again')).toBe('again');
  });
});
