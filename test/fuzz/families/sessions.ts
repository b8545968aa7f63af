import fc from 'fast-check';
import { Entry, str, Value } from '../support/params';
import { assemble, BodyEncoding } from '../support/requests';
import { family, Family, Probe } from '../support/runner';
import { readEnvelope } from '../support/checks';
import { Answer } from '../support/wire';
import { hostileText, mostly, strayEntries } from '../support/values';
import { CONSOLE_USER, KEYS, World } from '../support/world';

/*
 * The console's operations: sign-in, sign-out, the password and key changes, and the CSRF header
 * they require. Only CONSOLE_USER has a password, and no generated sign-in names it, so every
 * generated sign-in is wrong credentials; the sessions the requests carry are forged, or
 * CONSOLE_USER's own without its CSRF token: none of it may get further than a refusal, whatever
 * the body, nor bring a password back in an answer.
 */

const EMAILS = [
  'fuzz@example.test',
  'suspended@example.test',
  'other@example.test',
  'nobody@example.test',
  'FUZZ@EXAMPLE.TEST',
  ' fuzz@example.test',
  '',
];

const passwordValue: fc.Arbitrary<Value> = mostly(
  fc
    .oneof(
      fc.string({ minLength: 8, maxLength: 80 }),
      fc.constantFrom('correct horse battery staple', KEYS.main),
      hostileText,
    )
    .map(str),
);

const emailValue: fc.Arbitrary<Value> = mostly(
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...EMAILS) }, hostileText).map(str),
);

/** Session cookies and CSRF tokens a client could send: none, forged or malformed. */
const cookieValue = fc.oneof(
  fc.constant(null),
  fc.constantFrom('', 'x', '0'.repeat(64), 'smsgw_session', '%zz', KEYS.main),
  fc.stringMatching(/^[\x21-\x7e]{1,100}$/).filter((text) => !/[;,]/.test(text)),
);
const csrfValue = fc.oneof(
  fc.constant(null),
  fc.constantFrom('', 'x', '0'.repeat(64)),
  fc.stringMatching(/^[\x21-\x7e]{1,100}$/),
);

/**
 * Passwords of a request body, which must never come back in an answer nor reach the log; those
 * too plain to be told from the log's own words (a run of one letter) are left out.
 */
function passwordsIn(entries: Entry[]): string[] {
  return entries.flatMap(([name, value]) =>
    /password/.test(name) && value.k === 'str' && value.v.length >= 8 && new Set(value.v).size >= 4
      ? [value.v]
      : [],
  );
}

function refusal(answer: Answer, passwords: string[], allowed: Record<number, number[]>): string[] {
  const problems: string[] = [];
  const read = readEnvelope(answer.body);
  if ('problem' in read) {
    return problems;
  }
  const status = answer.status ?? 0;
  if (!(status in allowed)) {
    problems.push(`answered ${status}, not one of ${Object.keys(allowed).join(', ')}`);
  } else if (!allowed[status].includes(read.envelope.error as number)) {
    problems.push(`answered ${status} with error ${String(read.envelope.error)}`);
  }
  if (status === 429 && !/^\d+$/.test(answer.headers['retry-after'] ?? '')) {
    problems.push('a 429 without a Retry-After in seconds');
  }
  const text = answer.body.toString('utf8');
  for (const password of passwords) {
    if (text.includes(password)) {
      problems.push('the answer contains a password of the request');
    }
  }
  return problems;
}

const encodingValue = fc.constantFrom<BodyEncoding>('json', 'form', 'multipart', 'none');

/**
 * post_login with any e-mail and password: always refused (no fuzz user has a password), 401
 * error 1 for the wrong pair, or 429 with Retry-After once the brute-force limits count enough
 * failures of the e-mail or of this address; 400 (error 2 or 4) for a body that is not a pair of texts.
 */
export const sessionLogin: Family = family(
  'session-login',
  3,
  () =>
    fc.record({
      email: fc.option(emailValue, { freq: 6 }),
      password: fc.option(passwordValue, { freq: 6 }),
      stray: strayEntries,
      encoding: encodingValue,
      slash: fc.boolean(),
    }),
  async (probe, value) => {
    const body: Entry[] = [
      ...(value.email ? [['email', value.email] as Entry] : []),
      ...(value.password ? [['password', value.password] as Entry] : []),
      ...value.stray,
    ];
    const passwords = passwordsIn(body);
    await probe.send(
      assemble({
        method: 'POST',
        path: value.slash ? '/api/login/' : '/api/login',
        query: [],
        body,
        encoding: value.encoding,
        listStyle: 'push',
        auth: {},
      }),
      {
        secrets: passwords,
        expect: (answer) =>
          refusal(answer, passwords, { 400: [2, 4], 401: [1], 429: [1], 413: [2] }),
      },
    );
  },
);

const SESSION_OPERATIONS: Array<{ path: string; method: string; params: string[] }> = [
  { path: '/api/logout/', method: 'POST', params: [] },
  { path: '/api/me/password/', method: 'POST', params: ['current_password', 'new_password'] },
  { path: '/api/me/api-key/', method: 'POST', params: ['password'] },
  { path: '/api/session/', method: 'GET', params: [] },
  { path: '/api/send-sms/', method: 'GET', params: [] },
];

/**
 * The session operations with a forged session cookie, any X-CSRF-Token (or none) and random
 * bodies: refused with 401 error 1 (no session) or 403 error 1 (no valid CSRF token), never a
 * 5xx, never a password echoed; the main user's key keeps working after each case.
 */
export const sessionForged: Family = family(
  'session-forged',
  3,
  () =>
    fc.record({
      operation: fc.constantFrom(...SESSION_OPERATIONS),
      cookie: cookieValue,
      csrf: csrfValue,
      values: fc.array(passwordValue, { minLength: 2, maxLength: 2 }),
      present: fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }),
      stray: strayEntries,
      encoding: encodingValue,
    }),
  async (probe, value) => {
    const { operation } = value;
    const body: Entry[] =
      operation.method === 'GET'
        ? []
        : [
            ...operation.params.flatMap((name, index): Entry[] =>
              value.present[index] ? [[name, value.values[index]]] : [],
            ),
            ...value.stray,
          ];
    const headers: Array<[string, string]> = [];
    if (value.cookie !== null) {
      headers.push(['Cookie', `smsgw_session=${value.cookie}`]);
    }
    if (value.csrf !== null) {
      headers.push(['X-CSRF-Token', value.csrf]);
    }
    const passwords = passwordsIn(body);
    await probe.send(
      assemble({
        method: operation.method,
        path: operation.path,
        query: [],
        body,
        encoding: operation.method === 'GET' ? 'none' : value.encoding,
        listStyle: 'push',
        auth: {},
        headers,
      }),
      {
        secrets: passwords,
        expect: (answer) =>
          refusal(answer, passwords, { 400: [2, 4], 401: [1], 403: [1], 413: [2] }),
      },
    );
    await probe.send(
      assemble({
        method: 'GET',
        path: '/api/list/phone/',
        query: [],
        body: [],
        encoding: 'none',
        listStyle: 'push',
        auth: { query: KEYS.main },
      }),
      {
        expect: (answer) =>
          answer.status === 200 ? [] : [`the main key then answered ${answer.status}`],
      },
    );
  },
);

interface Session {
  cookie: string;
  csrf: string;
}

/** CONSOLE_USER's session on each database's server: signed in once, by the first case. */
const sessions = new WeakMap<World, Session>();

async function sessionOf(probe: Probe, world: World): Promise<Session | null> {
  const known = sessions.get(world);
  if (known) {
    return known;
  }
  const answer = await probe.send(
    assemble({
      method: 'POST',
      path: '/api/login/',
      query: [],
      body: [
        ['email', str(CONSOLE_USER.email)],
        ['password', str(CONSOLE_USER.password)],
      ],
      encoding: 'json',
      listStyle: 'push',
      auth: {},
    }),
  );
  const cookie = /smsgw_session=([^;,\s]+)/.exec(answer.headers['set-cookie'] ?? '')?.[1];
  const read = readEnvelope(answer.body);
  const csrf =
    'envelope' in read
      ? (read.envelope.response as { csrf_token?: unknown } | null)?.csrf_token
      : undefined;
  if (answer.status !== 200 || !cookie || typeof csrf !== 'string') {
    probe.fail(`${CONSOLE_USER.email} could not sign in: ${answer.status}`);
    return null;
  }
  const session = { cookie: `smsgw_session=${cookie}`, csrf };
  sessions.set(world, session);
  return session;
}

/**
 * The session operations with CONSOLE_USER's real session but no X-CSRF-Token or a wrong one,
 * with random bodies: 403 error 1 (or the refusal of a body that cannot be read), and nothing changed: the session still answers get_session
 * and the user's key still works (neither logout nor the key renewal happened).
 */
const csrfCase = () =>
  fc.record({
    operation: fc.constantFrom(
      ...SESSION_OPERATIONS.filter(({ path }) => path !== '/api/session/'),
    ),
    csrf: csrfValue,
    values: fc.array(fc.oneof(passwordValue, fc.constant(str(CONSOLE_USER.password))), {
      minLength: 2,
      maxLength: 2,
    }),
    present: fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }),
    stray: strayEntries,
    encoding: encodingValue,
  });

async function runCsrfCase(probe: Probe, world: World, value: CsrfCase): Promise<void> {
  const session = await sessionOf(probe, world);
  if (!session) {
    return;
  }
  const { operation } = value;
  const body: Entry[] =
    operation.method === 'GET'
      ? []
      : [
          ...operation.params.flatMap((name, index): Entry[] =>
            value.present[index] ? [[name, value.values[index]]] : [],
          ),
          ...value.stray,
        ];
  const headers: Array<[string, string]> = [['Cookie', session.cookie]];
  if (value.csrf !== null) {
    headers.push(['X-CSRF-Token', value.csrf]);
  }
  const passwords = [...passwordsIn(body), CONSOLE_USER.password];
  const request = (method: string, path: string, extra: Array<[string, string]>) =>
    assemble({
      method,
      path,
      query: [],
      body: method === 'GET' ? [] : body,
      encoding: method === 'GET' ? 'none' : value.encoding,
      listStyle: 'push',
      auth: {},
      headers: extra,
    });
  // A body that cannot be read is refused before anyone is identified (400 error 2, 413); a
  // key in the body wins over the session, and a wrong one is the key's 401.
  const allowed: Record<number, number[]> = { 403: [1], 400: [2], 413: [2, 64] };
  if (body.some(([name]) => /^api_key/i.test(name))) {
    allowed[401] = [1];
  }
  await probe.send(request(operation.method, operation.path, headers), {
    secrets: passwords,
    expect: (answer) => refusal(answer, passwords, allowed),
  });
  await probe.send(request('GET', '/api/session/', [['Cookie', session.cookie]]), {
    expect: (answer) =>
      answer.status === 200 ? [] : [`the session then answered ${answer.status}`],
  });
  await probe.send(
    assemble({
      method: 'GET',
      path: '/api/list/phone/',
      query: [],
      body: [],
      encoding: 'none',
      listStyle: 'push',
      auth: { query: CONSOLE_USER.key },
    }),
    {
      expect: (answer) =>
        answer.status === 200 ? [] : [`the user's key then answered ${answer.status}`],
    },
  );
}

type CsrfCase = ReturnType<typeof csrfCase> extends fc.Arbitrary<infer T> ? T : never;

/** A family of its own shape: its cases need the world, to find the session of its server. */
export const sessionCsrf: Family = {
  name: 'session-csrf',
  weight: 3,
  cases: (world) =>
    csrfCase().map((value) => ({ run: (probe: Probe) => runCsrfCase(probe, world, value) })),
};
