import { countingWindows, remainingVolume } from './remaining-volume';

describe('countingWindows', () => {
  const now = new Date('2024-05-15T10:30:00Z');

  it('starts each window at its startpoint, evaluated at now in the service zone', () => {
    expect(
      countingWindows(
        [
          { volume: 5, startpoint: 'today' },
          { volume: 50, startpoint: 'this month midnight' },
        ],
        now,
        'Europe/Paris',
      ),
    ).toEqual([
      { volume: 5, since: '2024-05-14 22:00:00' },
      { volume: 50, since: '2024-04-30 22:00:00' },
    ]);
  });

  it('drops a limit whose startpoint PHP would not parse, and reads a volume stored as text', () => {
    expect(
      countingWindows(
        [
          { volume: 5, startpoint: 'garbage' },
          { volume: '7' as unknown as number, startpoint: '-1 hour' },
        ],
        now,
        'UTC',
      ),
    ).toEqual([{ volume: 7, since: '2024-05-15 09:30:00' }]);
  });
});

describe('remainingVolume', () => {
  it('is the smallest remainder over the windows', () => {
    const spent = new Map([
      ['2024-05-15 00:00:00', 4],
      ['2024-05-01 00:00:00', 48],
    ]);
    expect(
      remainingVolume(
        [
          { volume: 10, since: '2024-05-15 00:00:00' },
          { volume: 50, since: '2024-05-01 00:00:00' },
        ],
        (since) => spent.get(since) ?? 0,
      ),
    ).toBe(2);
  });

  it('goes below zero when more was sent than a window allows', () => {
    expect(remainingVolume([{ volume: 3, since: '2024-05-15 00:00:00' }], () => 5)).toBe(-2);
  });

  it('is Infinity without any window', () => {
    expect(remainingVolume([], () => 0)).toBe(Infinity);
  });
});
