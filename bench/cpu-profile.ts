/**
 * Where a CPU profile's time went: `ts-node bench/cpu-profile.ts FILE.cpuprofile` prints the
 * share of the main thread by package (self time of the frames' files) and by phase of the send
 * path (the innermost frame of the stack that belongs to a phase: a statement run for the
 * worker's claim counts as claim, not as SQLite). Profiles come from `node --cpu-prof` or the
 * inspector's Profiler (bench/RESULTS.md says how the peer benchmark's were taken).
 *
 * An `await` resumes with only the resumed function on the stack, so work that TypeORM or
 * mysql2 does after a driver callback is "other" unless a phase's own frame resumed it.
 *
 * A profile of the peer benchmark's process also holds its start and warm-up: `--timeline`
 * prints how busy the main thread was in each quarter second, and `--from S --to S` (seconds
 * since the profile started) counts only the samples of that span, such as the campaign's.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Phases by the file (and, where a file holds several, the function) of a frame. */
const PHASES: ReadonlyArray<{ phase: string; file: RegExp; fn?: RegExp }> = [
  { phase: 'send', file: /dispatch\/sender\.service/, fn: /^(sendAll|sendNow|sendOne|lane)$/ },
  { phase: 'send', file: /\/adapters\// },
  { phase: 'record', file: /dispatch\/(recording|quota-accounting|failover)/ },
  { phase: 'record', file: /dispatch\/sender\.service/, fn: /^(recordSent|count)$/ },
  { phase: 'claim', file: /dispatch\/(claim|phone-choice|pacing|validity)/ },
  { phase: 'expansion', file: /dispatch\/expansion/ },
  { phase: 'render', file: /dispatch\/rendering|\/text\// },
  { phase: 'worker: other', file: /dispatch\// },
  { phase: 'commit', file: /database\/(driver|sqlite-serializer)/ },
  { phase: 'parse', file: /common\/(params|http\/multipart|csv)|scheduled\/numbers-csv/ },
  { phase: 'request: smsgw', file: /\/(dist|src)\// },
  { phase: 'HTTP', file: /node_modules\/(express|router|body-parser|@nestjs|pino|finalhandler)/ },
  { phase: 'HTTP', file: /^node:(_http|http|net)/ },
];

function packageOf(url: string, functionName: string): string {
  if (url === '') {
    return functionName.startsWith('(') ? functionName : 'node (native)';
  }
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) {
    return modules[1];
  }
  const own = /\/(?:dist|src)\/([^/]+)/.exec(url);
  if (own) {
    return `smsgw: ${own[1].replace(/\.js$/, '')}`;
  }
  return url.startsWith('node:') ? 'node' : url;
}

function phaseOf(stack: readonly CallFrame[]): string {
  const leaf = stack[0];
  if (leaf.url === '' && leaf.functionName.startsWith('(')) {
    return leaf.functionName;
  }
  for (const frame of stack) {
    for (const { phase, file, fn } of PHASES) {
      if (file.test(frame.url) && (!fn || fn.test(frame.functionName))) {
        return phase;
      }
    }
  }
  return 'other';
}

function table(title: string, totals: Map<string, number>, all: number, rows = 20): void {
  console.log(`\n| ${title} | ms | share |\n| --- | ---: | ---: |`);
  [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .forEach(([name, micros]) => {
      console.log(
        `| ${name} | ${(micros / 1000).toFixed(0)} | ${((100 * micros) / all).toFixed(1)} % |`,
      );
    });
}

/** `--name value` of the command line, in seconds; undefined when absent. */
function seconds(args: readonly string[], name: string): number | undefined {
  const at = args.indexOf(name);
  if (at < 0) {
    return undefined;
  }
  const value = Number(args[at + 1]);
  if (!Number.isFinite(value)) {
    console.error(`${name} takes a number of seconds since the profile started`);
    process.exit(2);
  }
  return value;
}

/** The main thread's busy share per quarter second since the profile started. */
function timeline(profile: Profile, idleIds: ReadonlySet<number>): void {
  const quarters: Array<{ busy: number; idle: number }> = [];
  let offset = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    offset += micros;
    const quarter = Math.floor(offset / 250_000);
    for (let fill = quarters.length; fill <= quarter; fill++) {
      quarters.push({ busy: 0, idle: 0 });
    }
    quarters[quarter][idleIds.has(id) ? 'idle' : 'busy'] += micros;
  });
  console.log('\n| from s | busy |\n| ---: | ---: |');
  quarters.forEach(({ busy, idle }, quarter) => {
    const share = busy + idle === 0 ? 0 : (100 * busy) / (busy + idle);
    console.log(`| ${(quarter / 4).toFixed(2)} | ${share.toFixed(0)} % |`);
  });
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args.find(
    (arg, index) => !arg.startsWith('--') && !args[index - 1]?.startsWith('--'),
  );
  if (!file) {
    console.error(
      'usage: ts-node bench/cpu-profile.ts FILE.cpuprofile [--timeline] [--from S] [--to S]',
    );
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const from = (seconds(args, '--from') ?? 0) * 1e6;
  const to = (seconds(args, '--to') ?? Infinity) * 1e6;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      parent.set(child, node.id);
    }
  }
  const stackOf = new Map<number, CallFrame[]>();
  const stack = (id: number): CallFrame[] => {
    let frames = stackOf.get(id);
    if (!frames) {
      frames = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        frames.push(byId.get(at)!.callFrame);
      }
      stackOf.set(id, frames);
    }
    return frames;
  };
  const packages = new Map<string, number>();
  const phases = new Map<string, number>();
  const functions = new Map<string, number>();
  let all = 0;
  let idle = 0;
  let offset = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    offset += micros;
    if (offset < from || offset > to) {
      return;
    }
    const frames = stack(id);
    const leaf = frames[0];
    if (leaf.functionName === '(idle)') {
      idle += micros;
      return;
    }
    all += micros;
    const name = packageOf(leaf.url, leaf.functionName);
    packages.set(name, (packages.get(name) ?? 0) + micros);
    const phase = phaseOf(frames);
    phases.set(phase, (phases.get(phase) ?? 0) + micros);
    const fn = `${leaf.functionName || '(anonymous)'} ${leaf.url.replace(/^.*\/(node_modules|dist|src)\//, '')}`;
    functions.set(fn, (functions.get(fn) ?? 0) + micros);
  });
  const span = from > 0 || to < Infinity ? ` from ${from / 1e6} s to ${to / 1e6} s` : '';
  console.log(
    `${file}${span}: ${(all / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle (main thread)`,
  );
  if (args.includes('--timeline')) {
    const idleIds = new Set(
      profile.nodes
        .filter((node) => node.callFrame.functionName === '(idle)')
        .map((node) => node.id),
    );
    timeline(profile, idleIds);
  }
  table('package (self time)', packages, all);
  table('phase', phases, all);
  table('function (self time)', functions, all, 40);
}

main();
