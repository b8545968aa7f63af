import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkCallback,
  checkConsole,
  checkUndecodable,
  checkEnvelope,
  checkInternalText,
  checkMedia,
  pathOnly,
  preview,
  requestText,
  surfaceOf,
} from './checks';
import { FuzzServer, ROOT } from './server';
import { FuzzSettings } from './settings';
import { Answer, sendHttp, sendRaw, WireCase } from './wire';
import { KEYS, World } from './world';

/*
 * Runs one family of generated cases against the server with fast-check, and turns a failure
 * into a report a developer can replay: the shrunk requests, what was wrong, and the commands.
 */

/** One generated case: it sends its requests through the probe. */
export interface FuzzCase {
  run(probe: Probe): Promise<void>;
}

export interface Family {
  name: string;
  /** Its share of FUZZ_RUNS, relative to the other families. */
  weight: number;
  cases(world: World): fc.Arbitrary<FuzzCase>;
}

export function family<T>(
  name: string,
  weight: number,
  arbitrary: (world: World) => fc.Arbitrary<T>,
  run: (probe: Probe, value: T) => Promise<void>,
): Family {
  return {
    name,
    weight,
    cases: (world) =>
      arbitrary(world).map((value) => ({ run: (probe: Probe) => run(probe, value) })),
  };
}

/** A family whose generated value is the request itself. */
export function requestFamily(
  name: string,
  weight: number,
  arbitrary: (world: World) => fc.Arbitrary<WireCase>,
): Family {
  return family(name, weight, arbitrary, async (probe, wire) => void (await probe.send(wire)));
}

export interface SendOptions {
  /** Secret values the request carries: they must never reach the log. */
  secrets?: readonly string[];
  /** What this answer must be beyond the generic checks; returns the problems. */
  expect?: (answer: Answer) => string[];
}

export interface FuzzContext {
  server: FuzzServer;
  world: World;
  settings: FuzzSettings;
  database: string;
  dataDir: string;
  /** Where failures are written for replay. */
  artifacts: string;
  /** False once a case left the server dead or unanswering: it is replaced before the next. */
  healthy: boolean;
}

/** The requests of one case, the answers, and what was wrong with them. */
export class Probe {
  readonly exchanges: Array<{ wire: WireCase; answer: Answer }> = [];
  readonly failures: string[] = [];
  /** Set when a request may have made a message due now, which the worker then sends. */
  dispatches = false;

  constructor(private readonly context: FuzzContext) {}

  fail(problem: string): void {
    this.failures.push(problem);
  }

  async send(wire: WireCase, options: SendOptions = {}): Promise<Answer> {
    const { server, settings } = this.context;
    for (const secret of options.secrets ?? []) {
      this.context.world.secrets.add(secret);
    }
    const answer =
      wire.kind === 'http'
        ? await sendHttp(server.port, wire, settings.requestTimeoutMs)
        : await sendRaw(server.port, wire, wire.mustAnswer ? settings.requestTimeoutMs : 2000);
    this.exchanges.push({ wire, answer });
    const index = this.exchanges.length;
    const problems = this.answerProblems(wire, answer, options);
    // Without an answer, "no answer" says it all.
    if (answer.status !== null) {
      problems.push(...(options.expect?.(answer) ?? []));
    }
    for (const problem of problems) {
      this.fail(`request ${index}: ${problem}`);
    }
    if (wire.kind === 'http' && answer.status !== null && answer.status < 300) {
      const path = pathOnly(wire.path);
      if (/^\/api\/(?:scheduled|send-sms)\/?$/i.test(path)) {
        this.dispatches = true;
      }
    }
    return answer;
  }

  private answerProblems(wire: WireCase, answer: Answer, options: SendOptions): string[] {
    const { settings } = this.context;
    if (answer.timedOut && (wire.kind === 'http' || wire.mustAnswer)) {
      return [`no answer within ${settings.requestTimeoutMs} ms`];
    }
    if (wire.kind === 'raw' && wire.ending !== 'answer') {
      return [];
    }
    if (answer.status === null) {
      if (wire.kind === 'raw' && !wire.mustAnswer) {
        return [];
      }
      return [
        `no HTTP answer (${answer.error ?? 'connection closed'}${answer.body.length ? `; received ${preview(answer.body)}` : ''})`,
      ];
    }
    const problems: string[] = [];
    if (answer.status >= 500 && answer.status !== 503) {
      problems.push(`HTTP ${answer.status}`);
    }
    const method = wire.kind === 'http' ? wire.method : '';
    // A raw HEAD that Node read answers without a body; one it refused gets the envelope.
    const rawHead =
      wire.kind === 'raw' && /^HEAD /.test(wire.bytes.toString('latin1')) && !answer.body.length;
    // Headers too large are refused by Node's parser before any route: the envelope, whatever
    // the path (README, "Input limits and malformed requests").
    // A raw request Node refused is answered with the envelope, whatever its path; one it read
    // and routed answers as its path does (an empty 404 for a path that does not decode).
    const line =
      wire.kind === 'http'
        ? { method: wire.method, target: wire.path }
        : answer.body.length
          ? undefined
          : /^(?<method>[A-Z]+) +(?<target>\/\S*)/.exec(wire.bytes.toString('latin1'))?.groups;
    const surface = line && answer.status !== 431 ? surfaceOf(line.method, line.target) : 'api';
    switch (surface) {
      case 'api':
        problems.push(
          ...checkEnvelope(
            answer,
            wire.kind === 'http' ? method : rawHead ? 'HEAD' : null,
            wire.kind === 'http' ? wire.path : '',
          ),
        );
        break;
      case 'callback':
        problems.push(...checkCallback(answer));
        break;
      case 'media':
        problems.push(...checkMedia(wire, answer));
        break;
      case 'undecodable':
        problems.push(...checkUndecodable(answer));
        break;
      case 'console':
        problems.push(
          ...checkConsole(answer, wire.kind === 'http' ? method : null, line?.target ?? ''),
        );
        break;
      case 'docs':
        break;
    }
    // The console's page is HTML by design: the internal-text check looks for HTML in errors.
    const servesFile =
      (surface === 'media' && (answer.status === 200 || answer.status === 206)) ||
      (surface === 'console' && answer.status === 200);
    if (!servesFile) {
      problems.push(...checkInternalText(answer, requestText(wire), [ROOT, this.context.dataDir]));
    }
    const own = requestText(wire);
    const body = answer.body.toString('utf8');
    for (const secret of this.context.world.secrets) {
      if (body.includes(secret) && !own.includes(secret) && !options.secrets?.includes(secret)) {
        problems.push(`the answer holds a secret of another request: ${JSON.stringify(secret)}`);
      }
    }
    return problems;
  }
}

const CRASH_LINES = /uncaughtException|unhandledRejection|Unexpected failure/;
const UPLOAD_SETTLE_MS = 3000;
const DISPATCH_PAUSE_MS = 60;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's state after a case: alive, answering, a clean log, no upload left behind. */
async function checkServer(context: FuzzContext, probe: Probe, before: Uploads): Promise<void> {
  const { server, settings, world } = context;
  if (probe.dispatches) {
    // The worker picks a due message up within DISPATCH_POLL_MS: what it does is this case's.
    await sleep(DISPATCH_PAUSE_MS);
  }
  const { failure, out, err } = await server.sync(settings.requestTimeoutMs);
  const answered = failure === null;
  context.healthy = answered && !server.exited;
  if (server.exited) {
    probe.fail(`the server process ${server.exited}`);
  } else if (!answered) {
    probe.fail(`the server failed its control request (GET /api/list/phone/): ${failure}`);
  }
  for (const line of out.split('\n')) {
    if (CRASH_LINES.test(line)) {
      probe.fail(`the server logged: ${line.slice(0, 1500)}`);
    }
  }
  if (err.trim()) {
    probe.fail(`the server wrote to stderr:\n${err.slice(0, 3000)}`);
  }
  for (const secret of world.secrets) {
    if (out.includes(secret) || err.includes(secret)) {
      const line =
        `${out}\n${err}`.split('\n').find((candidate) => candidate.includes(secret)) ?? '';
      probe.fail(`a secret reached the log (${JSON.stringify(secret)}): ${line.slice(0, 1500)}`);
    }
  }
  if (answered && !server.exited) {
    const left = await settledUploads(server, before);
    if (left.length) {
      probe.fail(
        `upload files left behind ${UPLOAD_SETTLE_MS} ms after the case: ${left.slice(0, 10).join('; ')}`,
      );
    }
  }
}

interface Uploads {
  fds: Set<string>;
  files: Set<string>;
}

function uploads(server: FuzzServer): Uploads {
  return {
    fds: new Set(server.openUploads()),
    files: new Set(server.uploadFiles()),
  };
}

/** Upload descriptors and files this case opened and the server has not let go of. */
async function settledUploads(server: FuzzServer, before: Uploads): Promise<string[]> {
  const deadline = Date.now() + UPLOAD_SETTLE_MS;
  for (;;) {
    const now = uploads(server);
    const left = [
      ...[...now.fds]
        .filter((target) => !before.fds.has(target))
        .map((target) => `open: ${target}`),
      ...[...now.files].filter((file) => !before.files.has(file)).map((file) => `on disk: ${file}`),
    ];
    if (!left.length || Date.now() > deadline) {
      return left;
    }
    await sleep(50);
  }
}

/** A dead or hung server is replaced before the next case, so each case starts on a live one. */
async function ensureServer(context: FuzzContext): Promise<void> {
  const { server, settings } = context;
  if (context.healthy && !server.exited) {
    return;
  }
  await server.restart();
  // The new child's start-up lines are not the next case's.
  await server.sync(settings.requestTimeoutMs);
  context.healthy = true;
}

class CaseFailure extends Error {
  constructor(readonly probe: Probe) {
    super(probe.failures.join('\n'));
  }
}

export interface FamilyResult {
  cases: number;
  failure: string | null;
}

/** FNV-1a: each family gets a seed of its own, stable whatever other families run. */
export function familySeed(seed: number, name: string): number {
  let hash = 0x811c9dc5 ^ seed;
  for (const char of name) {
    hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  }
  return hash | 0;
}

/** Runs one case on a live server and returns its probe, failures included. */
async function runCase(context: FuzzContext, fuzzCase: FuzzCase): Promise<Probe> {
  const { server } = context;
  // The previous case ended with a control request whose log line was awaited: what the server
  // logs from here on is this case's.
  await ensureServer(context);
  const probe = new Probe(context);
  const before = uploads(server);
  await fuzzCase.run(probe);
  await checkServer(context, probe, before);
  return probe;
}

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * A failure's kind: its problems without what differs between cases of one defect (values,
 * numbers, the parameter, the server's explanation, the content type).
 */
function signature(failures: readonly string[]): string {
  const kinds = failures.map((failure) =>
    failure
      .split('\n')[0]
      .replace(/^request \d+: /, '')
      .replace(/"[^"]*"/g, '"…"')
      .replace(/\([^)]*\)/g, '(…)')
      .replace(/ in [\w.[\]]+:/, ' in …:')
      .replace(/served as [^,]+,/, 'served as …,')
      .replace(/[0-9a-f]{16,}/g, 'H')
      .replace(/\d+/g, 'N'),
  );
  return [...new Set(kinds)].sort().join(' + ');
}

export async function runFamily(
  context: FuzzContext,
  family: Family,
  runs: number,
): Promise<FamilyResult> {
  const { settings } = context;
  const seed = familySeed(settings.seed, family.name);
  const parameters = { seed, numRuns: runs, path: settings.path ?? undefined };
  let cases = 0;
  if (settings.survey) {
    // Every case runs, none shrinks: each kind of failure is reported once, with its first case.
    const kinds = new Map<string, { count: number; example: string }>();
    const details = await fc.check(
      fc.asyncProperty(family.cases(context.world), async (fuzzCase) => {
        const probe = await runCase(context, fuzzCase);
        if (probe.failures.length) {
          const kind = signature(probe.failures);
          const known = kinds.get(kind);
          if (known) {
            known.count += 1;
          } else {
            const label = `${family.name}/${kinds.size + 1}`;
            const example = report(context, family.name, label, seed, String(cases), 0, probe);
            kinds.set(kind, { count: 1, example });
          }
        }
        cases += 1;
        return true;
      }),
      parameters,
    );
    await ensureServer(context);
    if (details.failed) {
      return {
        cases,
        failure: `${family.name}: the fuzz itself failed: ${describeError(details.errorInstance)}`,
      };
    }
    const found = [...kinds.values()].map(
      ({ count, example }) => `${count} case(s) like this one:\n${example}`,
    );
    return { cases, failure: found.length ? found.join('\n\n') : null };
  }
  let shrinkingSince: number | null = null;
  const property = fc.asyncProperty(family.cases(context.world), async (fuzzCase) => {
    if (shrinkingSince !== null && Date.now() - shrinkingSince > settings.shrinkMs) {
      // Out of shrinking time: the smallest failure found so far is the one reported.
      return true;
    }
    cases += 1;
    const probe = await runCase(context, fuzzCase);
    if (probe.failures.length) {
      shrinkingSince ??= Date.now();
      throw new CaseFailure(probe);
    }
    return true;
  });
  const details = await fc.check(property, parameters);
  await ensureServer(context);
  if (!details.failed) {
    return { cases, failure: null };
  }
  const error = details.errorInstance;
  if (!(error instanceof CaseFailure)) {
    return {
      cases,
      failure: `${family.name}: the fuzz itself failed: ${describeError(error)}`,
    };
  }
  return {
    cases,
    failure: report(
      context,
      family.name,
      family.name,
      seed,
      details.counterexamplePath ?? '',
      details.numShrinks,
      error.probe,
    ),
  };
}

/** A long line cut for the report (the replay files keep it whole). */
function clip(text: string, max = 400): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The failure as text, with its requests saved under the temporary folder for replay. */
function report(
  context: FuzzContext,
  family: string,
  /** The family, or in a survey the family and the kind of failure. */
  label: string,
  seed: number,
  path: string,
  shrinks: number,
  probe: Probe,
): string {
  const folder = join(context.artifacts, label);
  mkdirSync(folder, { recursive: true });
  const script = [
    '#!/bin/sh',
    '# Replays a fuzz failure: sh replay.sh [host] [port]',
    'HOST=${1:-127.0.0.1}',
    'PORT=${2:-3000}',
    `cd "$(dirname "$0")"`,
  ];
  const lines = [
    `[${context.database}] ${label}: ${probe.failures.length} problem(s) with this case (shrunk ${shrinks} times):`,
    // Continuation lines are marked: Jest would take lines starting with "at" for its own stack.
    ...probe.failures.map((failure) => `  - ${clip(failure, 2500).replace(/\n/g, '\n    | ')}`),
  ];
  probe.exchanges.forEach(({ wire, answer }, index) => {
    const file = `request-${index + 1}.bin`;
    const body = wire.kind === 'http' ? (wire.body ?? Buffer.alloc(0)) : wire.bytes;
    writeFileSync(join(folder, file), body);
    lines.push(`  request ${index + 1}:`);
    if (wire.kind === 'http') {
      lines.push(`    ${wire.method} ${clip(wire.path)}`);
      for (const [name, value] of wire.headers) {
        lines.push(`    ${clip(`${name}: ${value}`)}`);
      }
      if (wire.body) {
        lines.push(`    body (${wire.body.length} bytes): ${preview(wire.body, 600)}`);
      }
      const headers = wire.headers
        .map(([name, value]) => ` -H ${shellQuote(`${name}: ${value}`)}`)
        .join('');
      const method = wire.method === 'HEAD' ? '-I' : `-X ${shellQuote(wire.method)}`;
      const data = wire.body ? ` --data-binary @${file}` : '';
      script.push(
        `curl -sS -i -g --path-as-is ${method}${headers}${data} "http://$HOST:$PORT"${shellQuote(wire.path)}`,
      );
    } else {
      lines.push(
        `    raw bytes (${wire.bytes.length}, then ${wire.ending}): ${preview(wire.bytes, 600)}`,
      );
      script.push(
        `node -e 'const s=require("net").connect(+process.argv[2],process.argv[1],()=>s.write(require("fs").readFileSync(process.argv[3]),()=>s.end()));s.pipe(process.stdout)' "$HOST" "$PORT" ${file}`,
      );
    }
    lines.push(
      `    answer: ${answer.status ?? 'none'}${answer.timedOut ? ' (timed out)' : ''} ${preview(answer.body)}`,
    );
  });
  writeFileSync(join(folder, 'replay.sh'), `${script.join('\n')}\n`);
  lines.push(
    `  replay in the fuzz: FUZZ_SEED=${context.settings.seed} FUZZ_ONLY=${family} FUZZ_PATH=${shellQuote(path)} npm run fuzz` +
      ` (family seed ${seed})`,
    `  replay on a server: sh ${join(folder, 'replay.sh')} 127.0.0.1 3000, with its user made by` +
      ` \`npx smsgw user create --email fuzz@example.test --api-key ${KEYS.main}\``,
  );
  return lines.join('\n');
}
