import fc from 'fast-check';
import { Entry, list, map, num, str, Value } from '../support/params';
import { Providers } from '../support/providers';
import { hostileText, idValue, mostly, phoneNumberText } from '../support/values';

/*
 * Values of the API's own parameters: the kinds its operations read (ids, dates, booleans,
 * texts, recipients, phone fields), with boundaries and hostile values mixed in.
 */

export const ENTRY_TYPES = [
  'sended',
  'received',
  'scheduled',
  'contact',
  'group',
  'conditional_group',
  'phone',
  'phone_group',
  'media',
];

export const ADAPTERS = [
  'test',
  'benchmark',
  'twilio',
  'kannel',
  'ovh_virtual_number',
  'ovh_shortcode',
  'gammu',
  'smpp',
];

const ADAPTER_NAMES = [
  ...ADAPTERS,
  'adapters\\TestAdapter',
  'adapters\\TwilioVirtualNumberAdapter',
  'adapters\\KannelAdapter',
  'adapters\\OvhSmsVirtualNumberAdapter',
  'adapters\\OvhSmsShortcodeAdapter',
  'adapters\\GammuAdapter',
  'adapters\\BenchmarkAdapter',
  'TEST',
  ' test ',
  'test\u0000',
  'adapters\\',
  'adapters\\UnknownAdapter',
  'test_adapter',
  '__proto__',
  'constructor',
  'toString',
];

/** Marked so that the fuzz recognises them in logs and answers. */
export const secretValue: fc.Arbitrary<string> = fc
  .string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 12, maxLength: 12 })
  .map((hex) => `SeKrEt${hex}`);

export function isSecret(text: string): boolean {
  return /^SeKrEt[0-9a-f]{12}$/.test(text);
}

/** Where a Kannel adapter may connect: only this machine, never a generated host. */
function localUrl(providers: Providers): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.constantFrom('http', 'https', 'HTTP', 'ftp'),
          fc.constantFrom('', 'user:pass@', 'SeKrEt00000000000a@'),
          fc.constantFrom('127.0.0.1', 'localhost', '0.0.0.0'),
          fc.constantFrom(
            String(providers.fakePort),
            String(providers.closedPort),
            '0',
            '65536',
            'abc',
            '',
          ),
          fc.constantFrom(
            '/cgi-bin/sendsms',
            '/cgi-bin/sendsms?x=1&to=',
            '/',
            '',
            '/%zz',
            '/cgi-bin/sendsms#f',
            '/a b',
            '/é',
          ),
        )
        .map(
          ([scheme, user, host, port, path]) =>
            `${scheme}://${user}${host}${port ? `:${port}` : ''}${path}`,
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        'not a url',
        '://',
        'http://',
        'http:///x',
        '/relative',
        'mailto:x',
        'http://%zz/',
        'javascript:alert(1)',
      ),
    },
  );
}

/** A data field's value: a secret, a local destination, a number, or any text. */
type FieldKind = 'text' | 'secret' | 'number' | 'url' | 'host' | 'port' | 'choice';

const FIELDS: Record<string, Array<[string, FieldKind, string[]?]>> = {
  test: [
    ['delivery', 'choice', ['delivered', 'failed', 'unknown', 'sent', '']],
    [
      'phone_status',
      'choice',
      ['available', 'unavailable', 'no_credit', 'limit_reached', 'disabled', ''],
    ],
    // Mostly none: a phone that refuses every message leaves its messages to failover, which
    // needs phones that send.
    ['refusal', 'choice', ['', '', '', '', 'phone', 'recipient', 'PHONE', 'both']],
  ],
  benchmark: [],
  twilio: [
    ['account_sid', 'text'],
    ['auth_token', 'secret'],
    ['number', 'number'],
    ['status_change_callback', 'url'],
  ],
  kannel: [
    ['kannel_sendsms_url', 'url'],
    ['username', 'text'],
    ['password', 'secret'],
    ['from', 'text'],
    ['smsc', 'text'],
    ['dlr_url', 'url'],
  ],
  ovh_virtual_number: [
    ['service_name', 'text'],
    ['app_key', 'text'],
    ['app_secret', 'secret'],
    ['consumer_key', 'secret'],
    ['number', 'number'],
  ],
  ovh_shortcode: [
    ['service_name', 'text'],
    ['app_key', 'text'],
    ['app_secret', 'secret'],
    ['consumer_key', 'secret'],
    ['sender', 'text'],
  ],
  gammu: [
    [
      'config_file',
      'choice',
      [
        '/nonexistent/gammurc',
        '',
        '-h',
        '--version',
        '/dev/null',
        'gammurc;id',
        '../../etc/passwd',
      ],
    ],
    ['pin', 'choice', ['1234', '12345678', '123', 'abcd', '']],
  ],
  smpp: [
    ['host', 'host'],
    ['port', 'port'],
    ['system_id', 'text'],
    ['password', 'secret'],
    ['system_type', 'text'],
    ['source_addr', 'text'],
    ['max_pending_submits', 'choice', ['10', '1', '1000', '0', '1001', '2.5', '']],
    ['binds', 'choice', ['1', '3', '16', '0', '17', '']],
  ],
};

function fieldValue(
  kind: FieldKind,
  providers: Providers,
  choices: string[] = [],
): fc.Arbitrary<string> {
  switch (kind) {
    case 'text':
      return fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom('sid123', 'ACabc', 'sms-ab12345-1', 'Sender') },
        hostileText,
      );
    case 'secret':
      return fc.oneof({ weight: 4, arbitrary: secretValue }, hostileText);
    case 'number':
      return phoneNumberText;
    case 'url':
      return localUrl(providers);
    case 'host':
      return fc.constantFrom('127.0.0.1', 'localhost', '0.0.0.0', '');
    case 'port':
      return fc.constantFrom(
        String(providers.fakePort),
        String(providers.closedPort),
        '0',
        '65536',
        '-1',
        'abc',
        '',
        ' 1',
        '1e3',
        '99999999999',
      );
    case 'choice':
      return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...choices) }, hostileText);
  }
}

/** An adapter's data, as an object or a JSON text; fields sometimes missing, stray or reshaped. */
export function adapterDataFor(adapter: string, providers: Providers): fc.Arbitrary<Value> {
  const fields = FIELDS[adapter] ?? [];
  const entries = fc.tuple(
    ...fields.map(([name, kind, choices]) =>
      fc.option(
        fieldValue(kind, providers, choices).map((text): Entry => [name, str(text)]),
        { freq: 5 },
      ),
    ),
  );
  const ovh = adapter.startsWith('ovh')
    ? [
        fc.constant(
          Object.entries(providers.ovhData).map(([name, text]): Entry => [name, str(text)]),
        ),
      ]
    : [];
  return fc
    .tuple(
      fc.oneof(
        entries.map((options) => options.filter((entry): entry is Entry => entry !== null)),
        ...ovh,
      ),
      fc.array(
        fc.tuple(
          fc.constantFrom('__proto__', 'constructor', 'extra', 'number', ''),
          hostileText.map(str),
        ),
        { maxLength: 2 },
      ),
      fc.constantFrom('object', 'object', 'object', 'json-string', 'reshaped'),
    )
    .chain(([kept, stray, form]) => {
      const data = map([...kept, ...stray]);
      if (form === 'json-string') {
        return fc.constant(
          str(
            JSON.stringify(
              Object.fromEntries(
                [...kept, ...stray].map(([name, value]) => [
                  name,
                  value.k === 'str' ? value.v : null,
                ]),
              ),
            ),
          ),
        );
      }
      if (form === 'reshaped') {
        return mostly(fc.constant(data));
      }
      return fc.constant(data);
    });
}

/** The secrets inside a generated value, wherever they are. */
export function secretsIn(value: Value): string[] {
  switch (value.k) {
    case 'str':
      return isSecret(value.v) ? [value.v] : (value.v.match(/SeKrEt[0-9a-f]{12}/g) ?? []);
    case 'list':
      return value.items.flatMap(secretsIn);
    case 'map':
      return value.entries.flatMap(([, item]) => secretsIn(item));
    default:
      return [];
  }
}

const STARTPOINTS = [
  'today',
  'yesterday',
  '-24 hours',
  'this week midnight',
  'this month midnight',
  'first day of this month midnight',
  'first day of next month',
  '+1 day',
  'next year',
  '@0',
  'tomorrow noon',
  'last monday of this month',
  'garbage',
  '',
  '0',
];

export const limitsValue: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(
        fc.tuple(
          mostly(idValue([1, 10, 100, 0])),
          mostly(fc.constantFrom(...STARTPOINTS).map(str)),
        ),
        { maxLength: 4 },
      )
      .map((limits) =>
        list(
          limits.map(([volume, startpoint]) =>
            map([
              ['volume', volume],
              ['startpoint', startpoint],
            ]),
          ),
        ),
      ),
  },
  { weight: 1, arbitrary: mostly(fc.constant(list([]))) },
);

const DATA_TEXTS = [
  '[]',
  '{}',
  '{"firstname":"John"}',
  '{',
  'null',
  '1',
  '"x"',
  '[1,2]',
  '{"a":{"b":{"c":{}}}}',
  '{"__proto__":{"x":1}}',
  '',
  'not json',
];

export const numbersValue: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.array(phoneNumberText.map(str), { minLength: 1, maxLength: 4 }).map(list),
  },
  { weight: 2, arbitrary: phoneNumberText.map(str) },
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.tuple(
          mostly(phoneNumberText.map(str)),
          fc.option(
            fc.oneof(
              fc.constantFrom(...DATA_TEXTS).map(str),
              fc
                .dictionary(fc.constantFrom('firstname', 'name', '__proto__', 'a b'), hostileText)
                .map((data) =>
                  map(Object.entries(data).map(([name, text]): Entry => [name, str(text)])),
                ),
              hostileText.map(str),
            ),
          ),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((items) =>
        list(
          items.map(([number, data]) =>
            map(
              data
                ? [
                    ['number', number],
                    ['data', data],
                  ]
                : [['number', number]],
            ),
          ),
        ),
      ),
  },
  { weight: 1, arbitrary: mostly(phoneNumberText.map(str)) },
);

export function idsValue(pool: readonly number[]): fc.Arbitrary<Value> {
  return fc.oneof(
    fc.array(idValue(pool), { maxLength: 3 }).map(list),
    idValue(pool),
    fc
      .array(fc.tuple(fc.constantFrom('0', '1', '5', '99999999999', 'a', '-1'), idValue(pool)), {
        maxLength: 3,
      })
      .map(map),
  );
}

export const textValue: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom('Hello', 'Hi {{ contact.firstname }}', '0', 'STOP').map(str),
  },
  { weight: 3, arbitrary: hostileText.map(str) },
);

export const percentValue: fc.Arbitrary<Value> = fc.oneof(
  fc
    .constantFrom('0', '50', '100', '100.01', '-1', '0.005', '1e2', '50%', ' 5', '5,5', 'NaN', '')
    .map(str),
  hostileText.map(str),
);

/** A phone's `rate`: messages per second, its bounds and what a client might send instead. */
export const rateValue: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(
        '0.5',
        '12.25',
        '50',
        '0.001',
        '1000',
        '0.0009',
        '1000.0001',
        '0',
        '-1',
        '1e2',
        '0,5',
        'NaN',
        'Infinity',
        ' 5',
        '',
      )
      .map(str),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.double({ min: -10, max: 2000 }), fc.constantFrom(0.001, 1000, 0, -0, 1e-300))
      .map(num),
  },
  { weight: 1, arbitrary: fc.constantFrom<Value>({ k: 'null' }, { k: 'raw', v: '1e999' }) },
  { weight: 1, arbitrary: hostileText.map(str) },
);

/** A message's validity: minutes from 1 to 10080, their edges, and what is not one. */
export const validityValue: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom('1', '30', '10080', '0', '10081', '-1', '1.5', '1e2', ' 5', '05', '99999', '')
      .map(str),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.integer({ min: -5, max: 20_000 }), fc.double({ min: -1, max: 20_000 }))
      .map(num),
  },
  { weight: 1, arbitrary: fc.constantFrom<Value>({ k: 'null' }, { k: 'raw', v: '1e999' }) },
  { weight: 1, arbitrary: hostileText.map(str) },
);

/** A message's priority: the two taken, in any case and spacing, and what is not one. */
export const priorityValue: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('high', 'normal', ' HIGH ', '', 'urgent', '1', '0').map(str),
  },
  { weight: 1, arbitrary: fc.constantFrom<Value>({ k: 'null' }, num(1)) },
  { weight: 1, arbitrary: hostileText.map(str) },
);

/**
 * An idempotency key: a few reused ones, so that a key meets another request (422) or its own
 * again (a replay), their length edges, and what is not one (empty, not printable ASCII).
 */
export const idempotencyKeyValue: fc.Arbitrary<Value> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('fuzz-1', 'fuzz-2', 'fuzz-3').map(str) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('', ' ', 'k'.repeat(255), 'k'.repeat(256), 'clé', 'a\tb', '~!@#$%^&*()')
      .map(str),
  },
  { weight: 1, arbitrary: hostileText.map(str) },
);

/**
 * A send window of `length` characters that the syntax takes, padded with blanks after a comma:
 * at 255 characters it is taken, past them refused for its length alone.
 */
export function windowOfLength(length: number): string {
  const ranges = Array.from({ length: 20 }, () => '08:00-20:00').join(',');
  return ranges.replace(',', `,${' '.repeat(length - ranges.length)}`);
}

/** Windows of each form the syntax takes: days, several ranges, across midnight, wrapping days. */
export const WINDOWS = [
  '08:00-20:00',
  'mon-fri 08:00-20:00, sat 10:00-18:00',
  '22:00-06:00',
  'fri-mon 00:00-24:00',
  'mon,wed 09:00-12:00',
  'Mon-Fri 08:00 - 12:00, 14:00-18:00',
  windowOfLength(255),
];

/** Near misses of a window: a word, a short hour, an empty range, a misspelt day, days alone. */
export const WINDOWS_REFUSED = [
  'nights',
  '8:00-20:00',
  '09:00-09:00',
  'mon-fry 08:00-20:00',
  'mon, tue',
  '24:00-06:00',
  '08:00-24:01',
  '08:60-20:00',
  '08:00-20:00,',
  windowOfLength(256),
];

/** A window made of parts, each near the syntax: days or not, hours and minutes past their range. */
const composedWindow: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.option(
        fc.constantFrom('mon', 'sun', 'fri-mon', 'SAT', 'mon-fry', 'mon,tue', 'tue -thu', 'x'),
      ),
      fc.integer({ min: 0, max: 25 }),
      fc.constantFrom(0, 30, 59, 60),
      fc.integer({ min: 0, max: 25 }),
      fc.constantFrom(0, 30, 59, 60),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((ranges) =>
    ranges
      .map(([days, ...clock]) => {
        const [from, to] = [clock.slice(0, 2), clock.slice(2)].map((time) =>
          time.map((part) => String(part).padStart(2, '0')).join(':'),
        );
        return `${days === null ? '' : `${days} `}${from}-${to}`;
      })
      .join(', '),
  );

/**
 * A message's window: `none` in any case, a window, empty for the user's `send_window`, near
 * misses, and what is not a text.
 */
export const windowValue: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom('none', 'NONE', ' None ', '', ...WINDOWS, ...WINDOWS_REFUSED)
      .map(str),
  },
  { weight: 2, arbitrary: composedWindow.map(str) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Value>(
      { k: 'null' },
      num(8),
      list([str('08:00-20:00')]),
      map([
        ['from', str('08:00')],
        ['to', str('20:00')],
      ]),
    ),
  },
  { weight: 1, arbitrary: hostileText.map(str) },
);

/** The `send_window` setting: empty (any time) or a window; `none` is the parameter's only. */
export const sendWindowSetting: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('', 'none', ' ', ...WINDOWS, ...WINDOWS_REFUSED).map(str),
  },
  { weight: 1, arbitrary: composedWindow.map(str) },
  { weight: 1, arbitrary: hostileText.map(str) },
);

/** IANA time zone names, in any case, the current name and the former of a renamed zone. */
export const TIME_ZONES = [
  '',
  'Europe/Paris',
  'europe/paris',
  'UTC',
  'utc',
  'America/New_York',
  'Asia/Kolkata',
  'Asia/Calcutta',
  'Europe/Kyiv',
];

/** What is not a time zone name: a city without a zone, an offset, a name padded. */
export const TIME_ZONES_REFUSED = ['Europe/Lyon', '+02:00', 'Paris', ' Europe/Paris', 'Europe/'];

/** The `timezone` setting. */
export const timeZoneSetting: fc.Arbitrary<Value> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TIME_ZONES, ...TIME_ZONES_REFUSED).map(str) },
  { weight: 1, arbitrary: hostileText.map(str) },
);

export const likePattern: fc.Arbitrary<Value> = fc.oneof(
  fc
    .constantFrom(
      '%',
      '_',
      '\\',
      '\\%',
      '%\\',
      'a%b_c',
      '[a-z]',
      "'",
      '%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%',
    )
    .map(str),
  hostileText.map(str),
);

export const statusValue: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(
        'available',
        'disabled',
        'unavailable',
        'limit_reached',
        'AVAILABLE',
        ' disabled',
        '',
      )
      .map(str),
  },
  { weight: 1, arbitrary: hostileText.map(str) },
);

export const adapterValue: fc.Arbitrary<Value> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ADAPTER_NAMES).map(str) },
  { weight: 1, arbitrary: hostileText.map(str) },
);

export const nameValue: fc.Arbitrary<Value> = fc.oneof(
  { weight: 3, arbitrary: fc.nat({ max: 1_000_000 }).map((n) => str(`phone ${n}`)) },
  { weight: 1, arbitrary: fc.constantFrom('fuzz own 1', 'fuzz foreign 1').map(str) },
  { weight: 3, arbitrary: hostileText.map(str) },
);

/** A contact's `data`: an object of scalars mostly, else what a client might send by mistake. */
export const dataValue: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.constantFrom('firstname', 'plan', 'age', '__proto__', ''),
          hostileText.map(str),
        ),
        {
          maxLength: 4,
        },
      )
      .map(map),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('{"firstname":"Ann"}', '[]', '{', '"x"', '{"a":{"b":1}}').map(str),
  },
  { weight: 1, arbitrary: hostileText.map(str) },
);

/** Conditions of conditional groups: valid ones, near misses, and hostile text. */
export const conditionValue: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(
        "contact.gender == 'female'",
        'contact.age > 18',
        "contact_metas.name matches '/^A/'",
        'is_birthday(contact.birthday)',
        'contact.',
        'user.id == 1',
        'system("ls")',
        "'a' ~ ",
        '1..99999999',
        '(((((((((((((((((((((((1)))))))))))))))))))))))',
      )
      .map(str),
  },
  { weight: 2, arbitrary: hostileText.map(str) },
);

/** The JSON form of a contacts import: a list of contacts, mostly. */
export const contactsValue: fc.Arbitrary<Value> = fc.oneof(
  fc
    .array(
      fc.tuple(mostly(nameValue), mostly(phoneNumberText.map(str))).map(([name, number]) =>
        map([
          ['name', name],
          ['number', number],
        ]),
      ),
      { maxLength: 3 },
    )
    .map(list),
  hostileText.map(str),
);
