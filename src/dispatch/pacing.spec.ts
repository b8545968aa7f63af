import { PACE_LATE_MS, PACE_MAX_IN_FLIGHT, PacedLanes, slotSpacingMs } from './pacing';

describe('slotSpacingMs', () => {
  it('spaces slots 3 % wider than the rate', () => {
    expect(slotSpacingMs(50)).toBeCloseTo(1000 / 48.5, 6);
    expect(slotSpacingMs(0.5)).toBeCloseTo(2000 / 0.97, 6);
  });
});

describe('PacedLanes', () => {
  let started: Array<{ item: string; at: number }>;
  let passed: string[];
  let finish: Array<() => void>;
  let lanes: PacedLanes<string>;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    started = [];
    passed = [];
    finish = [];
    lanes = new PacedLanes<string>(
      (item) => {
        started.push({ item, at: Date.now() });
        return new Promise<void>((resolve) => finish.push(resolve));
      },
      (items) => passed.push(...items),
    );
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('starts each send at its slot, in slot order, whatever the order they came in', () => {
    lanes.add(1, 1_000_300, 'c');
    lanes.add(1, 1_000_100, 'a');
    lanes.add(1, 1_000_200, 'b');

    jest.advanceTimersByTime(99);
    expect(started).toEqual([]);
    jest.advanceTimersByTime(300);

    expect(started).toEqual([
      { item: 'a', at: 1_000_100 },
      { item: 'b', at: 1_000_200 },
      { item: 'c', at: 1_000_300 },
    ]);
    expect(passed).toEqual([]);
  });

  it('keeps phones apart: a lane waits for its own slots only', () => {
    lanes.add(1, 1_000_500, 'slow');
    lanes.add(2, 1_000_010, 'soon');

    jest.advanceTimersByTime(10);

    expect(started.map(({ item }) => item)).toEqual(['soon']);
  });

  it('gives up a slot it comes to too late, and sends the next on time', () => {
    lanes.add(1, 1_000_000 - PACE_LATE_MS - 1, 'late');
    lanes.add(1, 1_000_000 - PACE_LATE_MS, 'just in time');
    lanes.add(1, 1_000_050, 'later');

    jest.advanceTimersByTime(0);
    expect(passed).toEqual(['late']);
    expect(started.map(({ item }) => item)).toEqual(['just in time']);
    jest.advanceTimersByTime(50);
    expect(started.map(({ item }) => item)).toEqual(['just in time', 'later']);
  });

  it('gives up a slot that finds the sends in flight at their bound', () => {
    for (let n = 0; n <= PACE_MAX_IN_FLIGHT; n++) {
      lanes.add(1, 1_000_000 + n, `send ${n}`);
    }

    jest.advanceTimersByTime(PACE_MAX_IN_FLIGHT);

    expect(started).toHaveLength(PACE_MAX_IN_FLIGHT);
    expect(passed).toEqual([`send ${PACE_MAX_IN_FLIGHT}`]);
  });

  it('stops: returns what had not started once the sends running are over, and starts nothing after', async () => {
    lanes.add(1, 1_000_000, 'running');
    lanes.add(1, 1_000_100, 'waiting');
    jest.advanceTimersByTime(0);

    let left: string[] | null = null;
    const stopped = lanes.stop().then((items) => {
      left = items;
    });
    await Promise.resolve();
    expect(left).toBeNull();
    finish[0]();
    await stopped;

    expect(left).toEqual(['waiting']);
    lanes.add(1, 1_000_200, 'after');
    jest.advanceTimersByTime(1000);
    expect(started.map(({ item }) => item)).toEqual(['running']);
    expect(passed).toEqual(['after']);
  });
});
