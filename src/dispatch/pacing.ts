/*
 * Per-phone pacing (docs/dispatch.md#pacing). A paced phone's sends take sending slots: one every
 * `slotSpacingMs(rate)`, handed out by claims under the phone's row lock, so that every worker
 * process takes different ones. A send starts at its slot (at most PACE_LATE_MS later), or not
 * at all.
 */

/**
 * Slots are this much further apart than the rate asks: a second's worth of them spans 31 ms
 * more than a second. A send starting up to PACE_LATE_MS after its slot, while the next one
 * starts on time, takes 12 ms of that; the rest is for the network, and for the process of the
 * sends that come close (two workers' at the boundary of their slots) waiting for a core.
 * bench:dispatch shows what a lesser margin lets through.
 */
export const PACE_MARGIN = 0.03;

/** How late after its slot a send may still start; a later one gives its slot up. */
export const PACE_LATE_MS = 12;

/**
 * Rows whose slot comes within this are claimed at once and wait in their worker; later ones are
 * booked and wait in the queue. Long enough that a worker polling every 500 ms claims a booked
 * row before its turn, short enough that few sends wait in a worker that may die.
 */
export const PACE_AHEAD_MS = 2000;

/**
 * How long after its claim began a row's slot comes at the soonest: the claim must commit, and
 * its worker hand the row to its lane, before the slot, or the slot passes unused.
 */
export const PACE_LEAD_MS = 200;

/** Sends of one phone in flight at once in one process; a slot that finds them all busy passes. */
export const PACE_MAX_IN_FLIGHT = 64;

export function slotSpacingMs(rate: number): number {
  return 1000 / (rate * (1 - PACE_MARGIN));
}

interface Waiting<T> {
  slot: number;
  item: T;
}

interface Lane<T> {
  waiting: Array<Waiting<T>>;
  timer: NodeJS.Timeout | null;
  inFlight: number;
}

/**
 * The claimed sends of this process's paced phones, each started at its slot by a timer of its
 * phone's lane, outside the batch that claimed it: a batch never waits for a paced phone.
 */
export class PacedLanes<T> {
  private readonly lanes = new Map<number, Lane<T>>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  /**
   * @param send makes a send and keeps its outcome; never rejects.
   * @param passed is given the items whose slot passed before they could start.
   */
  constructor(
    private readonly send: (item: T) => Promise<void>,
    private readonly passed: (items: T[]) => void,
    private readonly now: () => number = Date.now,
  ) {}

  add(phoneId: number, slot: number, item: T): void {
    if (this.stopped) {
      this.passed([item]);
      return;
    }
    const lane = this.lanes.get(phoneId) ?? { waiting: [], timer: null, inFlight: 0 };
    this.lanes.set(phoneId, lane);
    // Slots mostly come in order: the place is found from the end.
    let index = lane.waiting.length;
    while (index > 0 && lane.waiting[index - 1].slot > slot) {
      index--;
    }
    lane.waiting.splice(index, 0, { slot, item });
    if (index === 0) {
      this.schedule(phoneId, lane);
    }
  }

  /**
   * Starts nothing more: the items that did not start are returned, once the sends running are
   * over.
   */
  async stop(): Promise<T[]> {
    this.stopped = true;
    const left: T[] = [];
    for (const lane of this.lanes.values()) {
      if (lane.timer) {
        clearTimeout(lane.timer);
      }
      left.push(...lane.waiting.map((waiting) => waiting.item));
    }
    this.lanes.clear();
    await Promise.all(this.running);
    return left;
  }

  private schedule(phoneId: number, lane: Lane<T>): void {
    if (lane.timer) {
      clearTimeout(lane.timer);
      lane.timer = null;
    }
    if (lane.waiting.length === 0) {
      if (lane.inFlight === 0) {
        this.lanes.delete(phoneId);
      }
      return;
    }
    lane.timer = setTimeout(
      () => this.start(phoneId, lane),
      Math.max(0, lane.waiting[0].slot - this.now()),
    );
  }

  private start(phoneId: number, lane: Lane<T>): void {
    lane.timer = null;
    const now = this.now();
    const passed: T[] = [];
    while (lane.waiting.length > 0 && lane.waiting[0].slot <= now) {
      const { slot, item } = lane.waiting.shift()!;
      if (now - slot > PACE_LATE_MS || lane.inFlight >= PACE_MAX_IN_FLIGHT) {
        passed.push(item);
        continue;
      }
      lane.inFlight++;
      const running = this.send(item).finally(() => {
        lane.inFlight--;
        this.running.delete(running);
        if (lane.inFlight === 0 && lane.waiting.length === 0 && this.lanes.get(phoneId) === lane) {
          this.lanes.delete(phoneId);
        }
      });
      this.running.add(running);
    }
    if (passed.length > 0) {
      this.passed(passed);
    }
    this.schedule(phoneId, lane);
  }
}
