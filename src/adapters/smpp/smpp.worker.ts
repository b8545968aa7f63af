import type { LookupFunction } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { OutboundRefusal } from '../../common/net/outbound-policy';
import type { SendResult } from '../adapter';
import { BindOutbound, BindOutcome } from './smpp.bind';
import { Delivery, SourceAddress, encodedMessage, sourceAddress, submitFields } from './smpp.codec';
import { SmppLink } from './smpp.link';
import {
  ConnectTarget,
  FromThread,
  LookupError,
  OpenLink,
  PAGE_SLOTS,
  SubmitBatch,
  ThreadLogger,
  ToThread,
} from './smpp.messages';

/*
 * The SMPP thread (see smpp.thread.ts): the links, their sessions, the PDUs. It answers the
 * sends' results in batches, asks the main thread to resolve host names through the outbound
 * policy, and hands it each delivery, whose status it answers the SMSC with.
 */

/** Results are posted when this many wait, or this long after the first of them. */
const RESULTS_PER_POST = 16;
const RESULTS_WAIT_MS = 1;

const port = parentPort;
if (!port) {
  throw new Error('smpp.worker.ts runs in a worker thread: see smpp.thread.ts.');
}

const post = (message: FromThread) => port.postMessage(message);
ThreadLogger.post = post;

interface OpenedLink {
  link: SmppLink;
  source: SourceAddress;
}

const links = new Map<number, OpenedLink>();
/** The written flags of the slots, set once a send's submit_sm is written (smpp.thread.ts). */
const pages: Uint8Array[] = [];
/** What the main thread is asked and has not answered yet. */
const asked = new Map<number, (answer: ToThread) => void>();
let nextQuestion = 1;

let sentSlots: number[] = [];
let uids: string[] = [];
let otherSlots: number[] = [];
let others: SendResult[] = [];
let resultsTimer: NodeJS.Timeout | null = null;

function postResults(): void {
  if (resultsTimer) {
    clearTimeout(resultsTimer);
    resultsTimer = null;
  }
  if (sentSlots.length + otherSlots.length === 0) {
    return;
  }
  post({
    type: 'results',
    sentSlots: Int32Array.from(sentSlots),
    uids,
    otherSlots: Int32Array.from(otherSlots),
    others,
  });
  sentSlots = [];
  uids = [];
  otherSlots = [];
  others = [];
}

function result(slot: number, sent: SendResult): void {
  if (sent.outcome === 'sent') {
    sentSlots.push(slot);
    uids.push(sent.uid);
  } else {
    otherSlots.push(slot);
    others.push(sent);
  }
  if (sentSlots.length + otherSlots.length >= RESULTS_PER_POST) {
    postResults();
  } else {
    resultsTimer ??= setTimeout(postResults, RESULTS_WAIT_MS);
  }
}

/** Answers a request of the main thread after the results before it, which it may wait for. */
function reply(request: number, value: BindOutcome | boolean | null): void {
  postResults();
  post({ type: 'reply', request, value });
}

function ask(question: (id: number) => FromThread): Promise<ToThread> {
  const id = nextQuestion++;
  return new Promise((resolve) => {
    asked.set(id, resolve);
    post(question(id));
  });
}

/** node:net's lookup, answered by the main thread's outbound policy. */
const lookup: LookupFunction = (hostname, options, callback) => {
  void ask((request) => ({
    type: 'lookup',
    request,
    hostname,
    family: typeof options.family === 'number' ? options.family : 0,
    all: options.all === true,
  })).then((answer) => {
    if (answer.type !== 'looked-up') {
      return;
    }
    if (answer.error) {
      callback(lookupError(answer.error), '');
    } else if (options.all) {
      callback(null, answer.addresses);
    } else {
      const [first] = answer.addresses;
      callback(null, first.address, first.family);
    }
  });
};

function lookupError(error: LookupError): NodeJS.ErrnoException {
  if (error.refusal) {
    return new OutboundRefusal(error.refusal.host, error.refusal.address, error.refusal.range);
  }
  return Object.assign(new Error(error.message), { code: error.code });
}

function outbound(target: ConnectTarget): BindOutbound {
  return {
    target: () =>
      'refusal' in target
        ? new OutboundRefusal(target.refusal.host, target.refusal.address, target.refusal.range)
        : { host: target.host, lookup },
  };
}

function open(message: OpenLink): void {
  const id = message.link;
  const link = new SmppLink(
    message.data,
    message.timeoutMs,
    message.timings,
    outbound(message.target),
    message.shape,
    async (delivery: Delivery) => {
      const answer = await ask((request) => ({ type: 'deliver', request, link: id, delivery }));
      return answer.type === 'delivered' ? answer.status : 0;
    },
  );
  links.set(id, { link, source: sourceAddress(message.data.source_addr ?? '') });
  if (message.listening) {
    link.listen(true);
  }
}

function submit(batch: SubmitBatch): void {
  const count = batch.slots.length;
  for (let index = 0; index < count; index++) {
    const slot = batch.slots[index];
    const opened = links.get(batch.links[batch.links.length === 1 ? 0 : index]);
    if (!opened) {
      result(slot, {
        outcome: 'transient',
        reason: 'smsgw closed its connection to the SMSC before the message was handed to it.',
      });
      continue;
    }
    const shared = batch.texts.length === 1 ? 0 : index;
    const validity = batch.validity[index];
    const fields = submitFields(
      opened.source,
      batch.destinations[index],
      encodedMessage(batch.texts[shared], batch.flash[shared] === 1),
      Number.isNaN(validity) ? null : validity,
    );
    void opened.link
      .submit(fields, () => {
        pages[Math.floor(slot / PAGE_SLOTS)][slot % PAGE_SLOTS] = 1;
      })
      .then((sent) => result(slot, sent));
  }
}

/** A bind outcome as it crosses to the main thread: the refusal's words, not its class. */
function plain(outcome: BindOutcome): BindOutcome {
  return outcome.ok || !outcome.refusal
    ? outcome
    : { ...outcome, refusal: { message: outcome.refusal.message } };
}

port.on('message', (message: ToThread) => {
  switch (message.type) {
    case 'submit':
      submit(message);
      break;
    case 'open':
      open(message);
      break;
    case 'adopt':
      links.get(message.link)?.link.adopt(message.data);
      break;
    case 'listening':
      links.get(message.link)?.link.listen(message.on);
      break;
    case 'bound': {
      // Null: the link is closed.
      const link = links.get(message.link)?.link;
      void (link?.bound() ?? Promise.resolve(null)).then((outcome) =>
        reply(message.request, outcome && plain(outcome)),
      );
      break;
    }
    case 'boundWith':
      reply(message.request, links.get(message.link)?.link.boundWith(message.password) ?? false);
      break;
    case 'close': {
      const link = links.get(message.link)?.link;
      links.delete(message.link);
      void (link?.close() ?? Promise.resolve()).then(() => reply(message.request, null));
      break;
    }
    case 'page':
      pages[message.index] = new Uint8Array(message.buffer);
      break;
    case 'looked-up':
    case 'delivered': {
      const answered = asked.get(message.request);
      asked.delete(message.request);
      answered?.(message);
      break;
    }
  }
});
