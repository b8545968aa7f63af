/**
 * Where a CPU profile's time went: `ts-node bench/cpu-profile.ts FILE.cpuprofile` prints the
 * share of the main thread by package (self time of the frames' files) and by phase of the send
 * path (the innermost frame of the stack that belongs to a phase: a statement run for the
 * worker's claim counts as claim, not as SQLite). Profiles come from `node --cpu-prof` or the
 * inspector's Profiler (bench/RESULTS.md says how the peer benchmark's were taken).
 *
 * An `await` resumes with only the resumed function on the stack, so work that TypeORM or
 * mysql2 does after a driver callback is "other" unless a phase's own frame resumed it.
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

function main(): void {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: ts-node bench/cpu-profile.ts FILE.cpuprofile');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
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
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
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
  console.log(
    `${file}: ${(all / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle (main thread)`,
  );
  table('package (self time)', packages, all);
  table('phase', phases, all);
  table('function (self time)', functions, all, 40);
}

main();
