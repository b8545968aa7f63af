import { PACE_LATE_MS, PACE_MAX_IN_FLIGHT, PacedLanes, slotSpacingMs } from './pacing';

describe('slotSpacingMs', () => {
  it('spaces slots 2 % wider than the rate', () => {
    expect(slotSpacingMs(50)).toBeCloseTo(1000 / 49, 6);
    expect(slotSpacingMs(0.5)).toBeCloseTo(2000 / 0.98, 6);
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
    lanes.add(1, 1_000_300, 0, 'c');
    lanes.add(1, 1_000_100, 0, 'a');
    lanes.add(1, 1_000_200, 0, 'b');

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
    lanes.add(1, 1_000_500, 0, 'slow');
    lanes.add(2, 1_000_010, 0, 'soon');

    jest.advanceTimersByTime(10);

    expect(started.map(({ item }) => item)).toEqual(['soon']);
  });

  it('gives up a slot it comes to too late, and sends the next on time', () => {
    lanes.add(1, 1_000_000 - PACE_LATE_MS - 1, 0, 'late');
    lanes.add(1, 1_000_000 - PACE_LATE_MS, 0, 'just in time');
    lanes.add(1, 1_000_050, 0, 'later');

    jest.advanceTimersByTime(0);
    expect(passed).toEqual(['late']);
    expect(started.map(({ item }) => item)).toEqual(['just in time']);
    jest.advanceTimersByTime(50);
    expect(started.map(({ item }) => item)).toEqual(['just in time', 'later']);
  });

  it('gives up a slot that finds the sends in flight at their bound', () => {
    for (let n = 0; n <= PACE_MAX_IN_FLIGHT; n++) {
      lanes.add(1, 1_000_000 + n, 0, `send ${n}`);
    }

    jest.advanceTimersByTime(PACE_MAX_IN_FLIGHT);

    expect(started).toHaveLength(PACE_MAX_IN_FLIGHT);
    expect(passed).toEqual([`send ${PACE_MAX_IN_FLIGHT}`]);
  });

  it('stops: returns what had not started once the sends running are over, and starts nothing after', async () => {
    lanes.add(1, 1_000_000, 0, 'running');
    lanes.add(1, 1_000_100, 0, 'waiting');
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
    lanes.add(1, 1_000_200, 0, 'after');
    jest.advanceTimersByTime(1000);
    expect(started.map(({ item }) => item)).toEqual(['running']);
    expect(passed).toEqual(['after']);
  });

  it('never starts two sends closer than the gap: a late start pushes the next ones back', () => {
    lanes.add(1, 1_000_000, 20, 'late');
    lanes.add(1, 1_000_021, 20, 'pushed');
    lanes.add(1, 1_000_042, 20, 'pushed less');
    lanes.add(1, 1_000_500, 20, 'on time');

    // The event loop was busy when the first slot came.
    jest.setSystemTime(1_000_012);
    jest.advanceTimersByTime(1000);

    expect(started).toEqual([
      { item: 'late', at: 1_000_012 },
      { item: 'pushed', at: 1_000_032 },
      { item: 'pushed less', at: 1_000_052 },
      { item: 'on time', at: 1_000_500 },
    ]);
    expect(passed).toEqual([]);
  });
});
