/*
 * npm run bench:params — the cost of reading request parameters.
 *
 *   BENCH_SIZES=262144,1048576,4194304     (body sizes in bytes, default these three)
 *
 * For each shape of urlencoded body (the worst ones for a bracket parser: long lists, deep
 * brackets, many keys, escapes, separators only) and each size, it prints the time the API's
 * parser takes with no limit on parameters, next to URLSearchParams splitting the same body in
 * the same run (a baseline that builds nothing), and the ratio of the two. Linear growth shows as
 * times that grow with the size, ratios that stay flat. Then it prints what a request costs
 * with MAX_PARAMS at its default (20,000): the most parameters allowed in 1 MiB, and the early
 * refusal of a body with more. Last, 1 MiB multipart bodies of many fields, through a real HTTP
 * server: parseMultipart and the bracket builder next to busboy alone.
 */
import busboy from 'busboy';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseMultipart } from '../src/common/http/multipart';
import { ApiRequest } from '../src/common/http/request';
import { ParamBudget, paramsFromPairs, parseQueryString } from '../src/common/params/query-string';

const SIZES = (process.env.BENCH_SIZES ?? '262144,1048576,4194304').split(',').map(Number);
const MAX_PARAMS = 20_000;
const MIB = 1024 * 1024;

/** `unit(i)` repeated, `&`-separated, up to `bytes`. */
function body(bytes: number, unit: (i: number) => string): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i += 1) {
    const part = unit(i);
    parts.push(part);
    size += part.length + 1;
  }
  return parts.join('&');
}

const SHAPES: Array<[string, (bytes: number) => string]> = [
  ['a[]=1 (one list)', (bytes) => body(bytes, () => 'a[]=1')],
  ['a[i]=1 (ascending)', (bytes) => body(bytes, (i) => `a[${i}]=1`)],
  ['a[n-i]=1 (descending)', (bytes) => body(bytes, (i) => `a[${1e7 - i}]=1`)],
  ['p{i}=1 (distinct names)', (bytes) => body(bytes, (i) => `p${i}=1`)],
  ['a=1 (one name repeated)', (bytes) => body(bytes, () => 'a=1')],
  ['a[][][][][]=1 (nested)', (bytes) => body(bytes, () => 'a[][][][][]=1')],
  ['a[i][b][c][d][e]=1 (deep)', (bytes) => body(bytes, (i) => `a[${i}][b][c][d][e]=1`)],
  ['m[k{i}]=1 (one map)', (bytes) => body(bytes, (i) => `m[k${i}]=1`)],
  ['a[]=%C3%A9% (escapes)', (bytes) => body(bytes, () => 'a[]=%C3%A9%')],
  ['&&&& (separators)', (bytes) => '&'.repeat(bytes)],
];

/** The fastest of `runs` runs of `action`, in ms. */
function fastest(action: () => void, runs = 5): number {
  let best = Infinity;
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    action();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

function parse(source: string, budget: number): void {
  try {
    parseQueryString(source, new ParamBudget(budget));
  } catch {
    // Bodies over the budget are refused: that refusal is what is timed.
  }
}

function splitOnly(source: string): void {
  let count = 0;
  for (const _pair of new URLSearchParams(source)) {
    count += 1;
  }
  if (count < 0) {
    throw new Error('unreachable');
  }
}

const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(10);

function urlencoded(): void {
  console.log('\nurlencoded, no limit on parameters: parser | URLSearchParams | ratio');
  for (const [name, make] of SHAPES) {
    const cells = SIZES.map((size) => {
      const source = make(size);
      const ours = fastest(() => parse(source, Number.MAX_SAFE_INTEGER));
      const base = fastest(() => splitOnly(source));
      return `${(size / 1024).toFixed(0)} KiB ${ms(ours)} |${ms(base)} | ×${(ours / base).toFixed(1)}`;
    });
    console.log(`  ${name.padEnd(28)} ${cells.join('   ')}`);
  }

  console.log(
    `\nurlencoded, 1 MiB, MAX_PARAMS ${MAX_PARAMS}: the most parameters allowed | ` +
      'the whole MiB of the shape (refused when over)',
  );
  for (const [name, make] of SHAPES) {
    const full = make(MIB);
    const allowed = full
      .split('&')
      .slice(0, MAX_PARAMS - 1)
      .join('&');
    const padded = `${allowed}&z=${'x'.repeat(Math.max(0, MIB - allowed.length - 3))}`;
    console.log(
      `  ${name.padEnd(28)} ${ms(fastest(() => parse(padded, MAX_PARAMS)))} |` +
        `${ms(fastest(() => parse(full, MAX_PARAMS)))}`,
    );
  }
}

/** `count` multipart fields named `name(i)`, padded to about `bytes`. */
function multipartBody(count: number, bytes: number, name: (i: number) => string): Buffer {
  const head = (i: number) => `--X\r\nContent-Disposition: form-data; name="${name(i)}"\r\n\r\n`;
  const overhead = head(0).length + 2;
  const value = 'x'.repeat(Math.max(1, Math.floor(bytes / count) - overhead));
  const parts: string[] = [];
  for (let i = 0; i < count; i += 1) {
    parts.push(`${head(i)}${value}\r\n`);
  }
  parts.push('--X--\r\n');
  return Buffer.from(parts.join(''));
}

async function multipart(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'smsgw-bench-'));
  let mode: 'ours' | 'busboy' = 'ours';
  let elapsed = 0;
  const server = createServer((req, res) => {
    const started = performance.now();
    const finish = () => {
      elapsed = performance.now() - started;
      res.end();
    };
    if (mode === 'busboy') {
      const parser = busboy({ headers: req.headers });
      // Busboy skips the fields nobody listens to: a listener makes it read them.
      parser.on('field', () => undefined);
      parser.on('close', finish);
      req.pipe(parser);
      return;
    }
    const limits = {
      fieldBytes: 2 * MIB,
      fileBytes: MIB,
      largeFileBytes: MIB,
      largeFileFields: new Set<string>(),
      files: 1,
    };
    parseMultipart(req as ApiRequest, folder, limits, new ParamBudget(MAX_PARAMS)).then(
      (fields) => {
        paramsFromPairs(fields);
        finish();
      },
      finish,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const post = (payload: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          headers: {
            'Content-Type': 'multipart/form-data; boundary=X',
            'Content-Length': payload.length,
          },
        },
        (response) => {
          response.resume();
          response.on('end', resolve);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });

  console.log(`\nmultipart, 1 MiB, through HTTP: parseMultipart + brackets | busboy alone | ratio`);
  const cases: Array<[string, Buffer]> = [
    ['20,000 fields a[]', multipartBody(MAX_PARAMS, MIB, () => 'a[]')],
    [
      '20,000 fields a[i][b][c][d][e]',
      multipartBody(MAX_PARAMS, MIB, (i) => `a[${i}][b][c][d][e]`),
    ],
    ['25,000 fields (refused)', multipartBody(25_000, MIB, () => 'a[]')],
  ];
  for (const [name, payload] of cases) {
    const timings: Record<'ours' | 'busboy', number> = { ours: Infinity, busboy: Infinity };
    for (let run = 0; run < 5; run += 1) {
      for (const side of ['ours', 'busboy'] as const) {
        mode = side;
        await post(payload);
        timings[side] = Math.min(timings[side], elapsed);
      }
    }
    console.log(
      `  ${name.padEnd(32)} ${ms(timings.ours)} |${ms(timings.busboy)} | ×${(timings.ours / timings.busboy).toFixed(1)}`,
    );
  }
  await new Promise((resolve) => server.close(resolve));
  rmSync(folder, { recursive: true, force: true });
}

async function main(): Promise<void> {
  urlencoded();
  await multipart();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
