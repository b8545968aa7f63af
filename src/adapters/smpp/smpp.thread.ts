import { Logger } from '@nestjs/common';
import type { LookupAddress } from 'node:dns';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { errors } from 'smpp';
import { OutboundPolicy, OutboundRefusal } from '../../common/net/outbound-policy';
import type { SendResult } from '../adapter';
import type { Delivery } from './smpp.codec';
import {
  FromThread,
  LookupError,
  OpenLink,
  PAGE_SLOTS,
  ResultBatch,
  SubmitBatch,
  ToThread,
} from './smpp.messages';

/**
 * The thread's code is this file's sibling: compiled JavaScript under `dist/`, or the TypeScript
 * source when this file runs from source (tests, benchmarks), which the thread then loads
 * through ts-node's transpile-only hook. Compiled, it takes none of the process's flags: a
 * `--require` of ts-node would load TypeScript into it, some 50 MiB.
 */
const EXTENSION = extname(__filename);
const WORKER_FILE = join(__dirname, `smpp.worker${EXTENSION}`);
const EXEC_ARGV = EXTENSION === '.ts' ? ['--require', 'ts-node/register/transpile-only'] : [];

/** A thread with no link open this long exits; the next link starts one again. */
const IDLE_TIMEOUT_MS = 30_000;

/** What the thread asks of a link's main side. */
export interface ThreadLink {
  /** `host:port`, for the reasons. */
  readonly where: string;
  /** The thread stopped: the link is no longer open in it. */
  lost(): void;
  /** The command_status to answer a deliver_sm with, once the listeners took it. */
  deliver(delivery: Exclude<Delivery, { kind: 'other' }>): Promise<number>;
}

interface Request {
  resolve(value: unknown): void;
  /** The answer when the thread stops first. */
  lost: unknown;
}

/**
 * The one worker thread that runs the SMPP sessions of an adapter (smpp.worker.ts), so that the
 * main thread, which runs the database, the API and the dispatch, spends no time on sockets and
 * PDUs. Started with the first link, it exits once no link has been open for 30 s, and never
 * keeps the process alive.
 *
 * Each send has a slot whose result comes back in a batch. The thread sets the slot's flag in
 * shared memory when it writes the submit_sm: if the thread dies, a send it wrote fails as
 * unknown (the SMSC may have taken it) and one it did not write fails as transient.
 */
export class SmppThread {
  private readonly logger = new Logger(SmppThread.name);
  private readonly loggers = new Map<string, Logger>();
  private worker: Worker | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  /** The links open in the thread, by number. */
  private readonly links = new Map<number, ThreadLink>();
  private nextLink = 1;
  private readonly requests = new Map<number, Request>();
  private nextRequest = 1;

  /** Per slot, the send's resolve and its link; free slots are reused first. */
  private readonly resolvers: Array<((result: SendResult) => void) | undefined> = [];
  private readonly owners: Array<ThreadLink | undefined> = [];
  private readonly free: number[] = [];
  private readonly pages: Uint8Array[] = [];

  /** The sends of this tick, posted together (`SubmitBatch`). */
  private pending = 0;
  private linkColumn = new Int32Array(64);
  private slotColumn = new Int32Array(64);
  private flashColumn = new Uint8Array(64);
  private validityColumn = new Float64Array(64);
  private destinationColumn: string[] = [];
  private textColumn: string[] = [];
  private sameText = true;
  private sameLink = true;
  private flushing = false;

  constructor(private readonly outbound: OutboundPolicy) {}

  /** Opens a link in the thread, starting it if needed; the link's number. */
  open(link: ThreadLink, message: Omit<OpenLink, 'type' | 'link'>): number {
    const id = this.nextLink++;
    this.links.set(id, link);
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    this.post({ type: 'open', link: id, ...message });
    return id;
  }

  /** Closes a link in the thread: its sessions unbind, and its sends waiting fail. */
  async close(link: number): Promise<void> {
    await this.request((request) => ({ type: 'close', request, link }), null);
    this.links.delete(link);
    if (this.links.size === 0 && this.worker && !this.idleTimer) {
      this.idleTimer = setTimeout(() => void this.terminate(), IDLE_TIMEOUT_MS);
      this.idleTimer.unref();
    }
  }

  /** Posts a message after the sends of this tick, which it must not overtake. */
  post(message: ToThread): void {
    this.flush();
    this.started().postMessage(message);
  }

  /** Asks the thread; `lost` is the answer if it stops first. */
  request<T>(build: (request: number) => ToThread, lost: T): Promise<T> {
    const id = this.nextRequest++;
    return new Promise<T>((resolve) => {
      this.requests.set(id, { resolve, lost });
      this.post(build(id));
    });
  }

  /** Sends one message through an open link, with the sends of the same tick. */
  submit(
    link: number,
    owner: ThreadLink,
    destination: string,
    text: string,
    flash: boolean,
    validitySeconds: number | null,
  ): Promise<SendResult> {
    const slot = this.slot(owner);
    const index = this.pending;
    if (index === this.slotColumn.length) {
      this.grow();
    }
    if (index === 0) {
      this.sameText = true;
      this.sameLink = true;
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => this.flush());
      }
    } else {
      this.sameText &&= text === this.textColumn[0] && (flash ? 1 : 0) === this.flashColumn[0];
      this.sameLink &&= link === this.linkColumn[0];
    }
    this.linkColumn[index] = link;
    this.slotColumn[index] = slot;
    this.flashColumn[index] = flash ? 1 : 0;
    this.validityColumn[index] = validitySeconds ?? NaN;
    this.destinationColumn.push(destination);
    this.textColumn.push(text);
    this.pending = index + 1;
    return new Promise((resolve) => {
      this.resolvers[slot] = resolve;
    });
  }

  /** Stops the thread once no link has been open for a while; it closes no link itself. */
  private async terminate(): Promise<void> {
    const worker = this.worker;
    if (worker) {
      this.lose(worker);
      await worker.terminate();
    }
  }

  private started(): Worker {
    if (this.worker) {
      return this.worker;
    }
    const worker = new Worker(WORKER_FILE, { execArgv: EXEC_ARGV });
    worker.on('message', (message: FromThread) => this.received(worker, message));
    worker.on('error', (error: unknown) => {
      this.logger.error({ err: error }, 'The SMPP thread failed.');
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) {
        this.logger.error(
          `The SMPP thread stopped (exit code ${code}): its sessions are closed, and the next send starts another.`,
        );
        this.lose(worker);
      }
    });
    // After the 'message' listener, which refs the thread again when added.
    worker.unref();
    this.worker = worker;
    this.pages.forEach((page, index) => {
      worker.postMessage({ type: 'page', index, buffer: page.buffer as SharedArrayBuffer });
    });
    return worker;
  }

  private slot(owner: ThreadLink): number {
    const slot = this.free.pop() ?? this.resolvers.length;
    if (slot === this.resolvers.length) {
      this.resolvers.push(undefined);
      this.owners.push(owner);
      if (slot % PAGE_SLOTS === 0) {
        const buffer = new SharedArrayBuffer(PAGE_SLOTS);
        this.pages.push(new Uint8Array(buffer));
        this.worker?.postMessage({ type: 'page', index: this.pages.length - 1, buffer });
      }
    } else {
      this.owners[slot] = owner;
    }
    this.pages[Math.floor(slot / PAGE_SLOTS)][slot % PAGE_SLOTS] = 0;
    return slot;
  }

  private grow(): void {
    const grown = <T extends Int32Array | Uint8Array | Float64Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    const size = this.slotColumn.length * 2;
    this.linkColumn = grown(this.linkColumn, new Int32Array(size));
    this.slotColumn = grown(this.slotColumn, new Int32Array(size));
    this.flashColumn = grown(this.flashColumn, new Uint8Array(size));
    this.validityColumn = grown(this.validityColumn, new Float64Array(size));
  }

  private flush(): void {
    this.flushing = false;
    const count = this.pending;
    if (count === 0 || !this.worker) {
      return;
    }
    const one = (all: boolean) => (all ? 1 : count);
    const batch: SubmitBatch = {
      type: 'submit',
      links: this.linkColumn.slice(0, one(this.sameLink)),
      slots: this.slotColumn.slice(0, count),
      destinations: this.destinationColumn,
      texts: this.sameText ? [this.textColumn[0]] : this.textColumn,
      flash: this.flashColumn.slice(0, one(this.sameText)),
      validity: this.validityColumn.slice(0, count),
    };
    this.pending = 0;
    this.destinationColumn = [];
    this.textColumn = [];
    this.worker.postMessage(batch);
  }

  private settle(slot: number, result: SendResult): void {
    const resolve = this.resolvers[slot];
    this.resolvers[slot] = undefined;
    this.owners[slot] = undefined;
    this.free.push(slot);
    resolve?.(result);
  }

  private results(batch: ResultBatch): void {
    const { sentSlots, uids, otherSlots, others } = batch;
    for (let index = 0; index < sentSlots.length; index++) {
      this.settle(sentSlots[index], { outcome: 'sent', uid: uids[index] });
    }
    for (let index = 0; index < otherSlots.length; index++) {
      this.settle(otherSlots[index], others[index]);
    }
  }

  private received(worker: Worker, message: FromThread): void {
    if (this.worker !== worker) {
      return;
    }
    switch (message.type) {
      case 'results':
        this.results(message);
        break;
      case 'reply': {
        const request = this.requests.get(message.request);
        this.requests.delete(message.request);
        request?.resolve(message.value);
        break;
      }
      case 'log': {
        let logger = this.loggers.get(message.logger);
        if (!logger) {
          logger = new Logger(message.logger);
          this.loggers.set(message.logger, logger);
        }
        logger[message.level](message.message);
        break;
      }
      case 'lookup':
        this.lookup(worker, message.request, message.hostname, message.family, message.all);
        break;
      case 'deliver': {
        const link = this.links.get(message.link);
        const delivery = message.delivery;
        if (delivery.kind === 'other') {
          break;
        }
        // A link closed meanwhile: the SMSC delivers it again on another session.
        void (link?.deliver(delivery) ?? Promise.resolve(errors.ESME_RX_T_APPN)).then((status) => {
          if (this.worker === worker) {
            worker.postMessage({ type: 'delivered', request: message.request, status });
          }
        });
        break;
      }
    }
  }

  /** Resolves a host name for the thread through the outbound policy, which checks it. */
  private lookup(
    worker: Worker,
    request: number,
    hostname: string,
    family: number,
    all: boolean,
  ): void {
    this.outbound.lookup(hostname, { family, all }, (error, address, addressFamily) => {
      if (this.worker !== worker) {
        return;
      }
      const addresses: LookupAddress[] = Array.isArray(address)
        ? address
        : error
          ? []
          : [{ address, family: addressFamily ?? 4 }];
      const answer: ToThread = {
        type: 'looked-up',
        request,
        error: error && lookupError(error),
        addresses,
      };
      worker.postMessage(answer);
    });
  }

  /**
   * The thread stopped: a send it wrote fails as unknown, one it did not as transient (the SMSC
   * never saw it); the links open in it are told, and the next link starts another thread.
   */
  private lose(worker: Worker): void {
    if (this.worker !== worker) {
      return;
    }
    this.worker = null;
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    this.pending = 0;
    this.destinationColumn = [];
    this.textColumn = [];
    this.resolvers.forEach((resolve, slot) => {
      const owner = this.owners[slot];
      if (!resolve || !owner) {
        return;
      }
      const written = this.pages[Math.floor(slot / PAGE_SLOTS)][slot % PAGE_SLOTS] === 1;
      this.settle(
        slot,
        written
          ? {
              outcome: 'ambiguous',
              reason: `The SMSC at ${owner.where} had not answered the message when smsgw's SMPP thread stopped: whether it took the message is unknown, so it is not sent again.`,
            }
          : {
              outcome: 'transient',
              reason: `smsgw's SMPP thread stopped before the message was handed to the SMSC at ${owner.where}.`,
            },
      );
    });
    const requests = [...this.requests.values()];
    this.requests.clear();
    for (const request of requests) {
      request.resolve(request.lost);
    }
    const links = [...this.links.values()];
    this.links.clear();
    for (const link of links) {
      link.lost();
    }
  }
}

function lookupError(error: NodeJS.ErrnoException): LookupError {
  return error instanceof OutboundRefusal
    ? {
        message: error.message,
        refusal: { host: error.host, address: error.address, range: error.range },
      }
    : { message: error.message, code: error.code };
}
