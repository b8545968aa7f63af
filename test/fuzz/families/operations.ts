import fc from 'fast-check';
import { PNG } from '../../support/scheduled.factories';
import { Entry, FilePart, str, Value } from '../support/params';
import { assemble, Auth, authArbitrary, BodyEncoding, segment } from '../support/requests';
import { family, Family } from '../support/runner';
import {
  dateText,
  hostileText,
  idText,
  idValue,
  booleanValue,
  mostly,
  phoneNumberText,
  strayEntries,
} from '../support/values';
import { idPool, Ids, World } from '../support/world';
import {
  adapterDataFor,
  adapterValue,
  ADAPTERS,
  conditionValue,
  contactsValue,
  dataValue,
  ENTRY_TYPES,
  idsValue,
  likePattern,
  limitsValue,
  nameValue,
  numbersValue,
  percentValue,
  rateValue,
  secretsIn,
  statusValue,
  textValue,
  validityValue,
  priorityValue,
  idempotencyKeyValue,
  windowValue,
  sendWindowSetting,
  timeZoneSetting,
} from './api-values';

/*
 * One family per operation of the API: every parameter with boundary, random and reshaped
 * values, placed in the path, the query or a body of any encoding, with the key mostly valid so
 * that the operation itself runs.
 */

type ParamArbitrary = (world: World) => fc.Arbitrary<Value>;
type SegmentArbitrary = (world: World) => fc.Arbitrary<string>;

interface Operation {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path templates; `{name}` is a path parameter. */
  paths: string[];
  segments?: Record<string, SegmentArbitrary>;
  params: Record<string, ParamArbitrary>;
  /** Uploads, for the operations that take them. */
  files?: boolean;
}

const ODD_SEGMENTS = [
  '%zz',
  '%',
  '..',
  '.',
  '%2F',
  'a%2Fb',
  '%00',
  '%C3%A9',
  '%ED%A0%80',
  '%FF',
  '%2e%2e',
  '%20',
  '+',
  '__proto__',
  'constructor',
  '9'.repeat(30),
];

function pathSegment(pool: (world: World) => readonly number[]): SegmentArbitrary {
  return (world) =>
    fc.oneof(
      { weight: 5, arbitrary: idText(pool(world)).map(segment) },
      { weight: 2, arbitrary: fc.constantFrom(...ODD_SEGMENTS) },
      // Long texts belong in bodies: a path is bounded by the header size (the header family).
      {
        weight: 1,
        arbitrary: hostileText.map((text) => segment([...text].slice(0, 200).join(''))),
      },
    );
}

const ids = (kind: keyof Ids) => (world: World) => idPool(world, kind);
const id =
  (kind: keyof Ids): ParamArbitrary =>
  (world) =>
    mostly(idValue(ids(kind)(world)));
const fixed =
  (arbitrary: fc.Arbitrary<Value>): ParamArbitrary =>
  () =>
    arbitrary;
const date: ParamArbitrary = () => mostly(dateText.map(str));

/** `adapter_data` is generated for the adapter named (see operationArbitrary). */
const PHONE_PARAMS: Record<string, ParamArbitrary> = {
  name: fixed(mostly(nameValue)),
  adapter: fixed(adapterValue),
  adapter_data: fixed(fc.constant(str(''))),
  priority: fixed(mostly(idValue([0, 1, 5, 2_147_483_647]))),
  rate: fixed(mostly(rateValue)),
  limits: fixed(limitsValue),
};

const idSegment = (kind: keyof Ids) => ({ id: pathSegment((world) => idPool(world, kind)) });
const idList =
  (kind: keyof Ids): ParamArbitrary =>
  (world) =>
    idsValue(idPool(world, kind));
const text = fixed(mostly(hostileText.map(str)));
const CONTACT_PARAMS: Record<string, ParamArbitrary> = {
  name: fixed(mostly(nameValue)),
  number: fixed(mostly(phoneNumberText.map(str))),
  data: fixed(dataValue),
};
const CONDITION_PARAMS: Record<string, ParamArbitrary> = {
  name: fixed(mostly(nameValue)),
  condition: fixed(mostly(conditionValue)),
};

/** The create / read / update / delete operations of a named resource of the management API. */
function resource(
  name: string,
  path: string,
  kind: keyof Ids,
  params: Record<string, ParamArbitrary>,
): Operation[] {
  return [
    { name: `post_${name}`, method: 'POST', paths: [path], params },
    {
      name: `get_${name}`,
      method: 'GET',
      paths: [`${path}/{id}`],
      segments: idSegment(kind),
      params: {},
    },
    {
      name: `post_update_${name}`,
      method: 'POST',
      paths: [`${path}/{id}`],
      segments: idSegment(kind),
      params,
    },
    {
      name: `delete_${name}`,
      method: 'DELETE',
      paths: [`${path}/{id}`],
      segments: idSegment(kind),
      params: {},
    },
  ];
}

export const OPERATIONS: Operation[] = [
  {
    name: 'get_entries',
    method: 'GET',
    paths: [
      '/api/list/{entry_type}',
      '/api/list/{entry_type}/{page}',
      '/api/list/{entry_type}/after/{cursor}',
      '/api/list/{entry_type}/before/{cursor}',
    ],
    segments: {
      entry_type: () =>
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...ENTRY_TYPES) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              'SENDED',
              'user',
              'setting',
              'webhook',
              'sms_stop',
              '__proto__',
              'constructor',
              'toString',
              '%zz',
            ),
          },
          {
            weight: 1,
            arbitrary: hostileText.map((text) => segment([...text].slice(0, 200).join(''))),
          },
        ),
      page: pathSegment(() => [0, 1, 2, 100]),
      cursor: pathSegment((world) => idPool(world, 'phone')),
    },
    params: {
      page: fixed(mostly(idValue([0, 1, 2]))),
      after_id: id('phone'),
      before_id: id('scheduled'),
    },
  },
  {
    name: 'get_usage',
    method: 'GET',
    paths: ['/api/usage'],
    params: { start: date, end: date, tag: fixed(mostly(likePattern)) },
  },
  {
    name: 'get_sms_status_stats',
    method: 'GET',
    paths: ['/api/stats/sms-status'],
    params: { start: date, end: date, id_phone: id('phone') },
  },
  {
    name: 'get_invalid_numbers',
    method: 'GET',
    paths: ['/api/invalid_number', '/api/invalid_number/{page}'],
    segments: { page: pathSegment(() => [0, 1, 2]) },
    params: {
      volume: fixed(mostly(idValue([0, 1, 100]))),
      percent_failed: fixed(mostly(percentValue)),
      percent_unknown: fixed(mostly(percentValue)),
      page: fixed(mostly(idValue([0, 1]))),
    },
  },
  {
    name: 'get_send_sms',
    method: 'GET',
    paths: ['/api/send-sms'],
    params: {
      to: fixed(mostly(numbersValue)),
      text: fixed(mostly(textValue)),
      id_phone: id('phone'),
      validity: fixed(validityValue),
      priority: fixed(priorityValue),
      window: fixed(windowValue),
      idempotency_key: fixed(idempotencyKeyValue),
    },
  },
  {
    name: 'post_scheduled',
    method: 'POST',
    paths: ['/api/scheduled'],
    files: true,
    params: {
      at: date,
      text: fixed(mostly(textValue)),
      id_phone: id('phone'),
      id_phone_group: id('phoneGroup'),
      flash: fixed(booleanValue),
      mms: fixed(booleanValue),
      tag: fixed(mostly(hostileText.map(str))),
      validity: fixed(validityValue),
      priority: fixed(priorityValue),
      window: fixed(windowValue),
      idempotency_key: fixed(idempotencyKeyValue),
      numbers: fixed(numbersValue),
      contacts: (world) => idsValue(idPool(world, 'contact')),
      groups: (world) => idsValue(idPool(world, 'group')),
      conditional_groups: (world) => idsValue(idPool(world, 'conditionalGroup')),
    },
  },
  {
    name: 'delete_scheduled',
    method: 'DELETE',
    paths: ['/api/scheduled/{id}'],
    segments: { id: pathSegment((world) => idPool(world, 'scheduled')) },
    params: { id: id('scheduled') },
  },
  {
    name: 'post_phone',
    method: 'POST',
    paths: ['/api/phone'],
    params: PHONE_PARAMS,
  },
  {
    name: 'post_update_phone',
    method: 'POST',
    paths: ['/api/phone/{id}'],
    segments: { id: pathSegment((world) => idPool(world, 'phone')) },
    params: PHONE_PARAMS,
  },
  {
    name: 'delete_phone',
    method: 'DELETE',
    paths: ['/api/phone/{id}'],
    segments: { id: pathSegment((world) => idPool(world, 'phone')) },
    params: { id: id('phone') },
  },
  {
    name: 'post_update_phone_status',
    method: 'POST',
    paths: ['/api/phone/{id}/status'],
    segments: { id: pathSegment((world) => idPool(world, 'phone')) },
    params: {},
  },
  {
    name: 'post_phone_callback_token',
    method: 'POST',
    paths: ['/api/phone/{id}/callback-token'],
    segments: { id: pathSegment((world) => idPool(world, 'phone')) },
    params: {},
  },
  {
    name: 'post_change_phone_status',
    method: 'POST',
    paths: ['/api/phone/{id}/status/force'],
    segments: { id: pathSegment((world) => idPool(world, 'phone')) },
    params: { status: fixed(statusValue) },
  },
  ...resource('contact', '/api/contact', 'contact', CONTACT_PARAMS),
  {
    name: 'post_import_contacts',
    method: 'POST',
    paths: ['/api/contact/import'],
    files: true,
    params: { contacts: fixed(mostly(contactsValue)) },
  },
  ...resource('group', '/api/group', 'group', {
    name: fixed(mostly(nameValue)),
    contacts: idList('contact'),
  }),
  ...resource('conditional_group', '/api/conditional_group', 'conditionalGroup', CONDITION_PARAMS),
  {
    name: 'get_conditional_group_contacts',
    method: 'GET',
    paths: ['/api/conditional_group/{id}/contacts'],
    segments: idSegment('conditionalGroup'),
    params: { page: fixed(mostly(idValue([0, 1, 2]))) },
  },
  {
    name: 'get_conditional_group_preview',
    method: 'GET',
    paths: ['/api/conditional_group/preview'],
    params: { condition: fixed(mostly(conditionValue)), page: fixed(mostly(idValue([0, 1]))) },
  },
  ...resource('phone_group', '/api/phone_group', 'phoneGroup', {
    name: fixed(mostly(nameValue)),
    phones: idList('phone'),
  }),
  {
    name: 'get_sended',
    method: 'GET',
    paths: ['/api/sended/{id}'],
    segments: idSegment('sended'),
    params: {},
  },
  {
    name: 'delete_sended',
    method: 'DELETE',
    paths: ['/api/sended/{id}'],
    segments: idSegment('sended'),
    params: {},
  },
  {
    name: 'get_received',
    method: 'GET',
    paths: ['/api/received/{id}'],
    segments: idSegment('received'),
    params: {},
  },
  {
    name: 'post_update_received',
    method: 'POST',
    paths: ['/api/received/{id}'],
    segments: idSegment('received'),
    params: { status: fixed(mostly(fc.constantFrom('read', 'unread', 'READ', '').map(str))) },
  },
  {
    name: 'delete_received',
    method: 'DELETE',
    paths: ['/api/received/{id}'],
    segments: idSegment('received'),
    params: {},
  },
  {
    name: 'get_scheduled',
    method: 'GET',
    paths: ['/api/scheduled/{id}'],
    segments: idSegment('scheduled'),
    params: {},
  },
  {
    name: 'post_update_scheduled',
    method: 'POST',
    paths: ['/api/scheduled/{id}'],
    segments: idSegment('scheduled'),
    params: {
      at: date,
      text: fixed(mostly(textValue)),
      id_phone: id('phone'),
      id_phone_group: id('phoneGroup'),
      flash: fixed(booleanValue),
      tag: text,
      validity: fixed(validityValue),
      priority: fixed(priorityValue),
      window: fixed(windowValue),
      numbers: fixed(numbersValue),
      contacts: idList('contact'),
      groups: idList('group'),
      conditional_groups: idList('conditionalGroup'),
    },
  },
  {
    name: 'get_entries_filtered',
    method: 'GET',
    paths: ['/api/list/{entry_type}', '/api/list/{entry_type}/after/{cursor}'],
    segments: {
      entry_type: () => fc.constantFrom('sended', 'received', 'scheduled', 'contact', 'group'),
      cursor: pathSegment((world) => idPool(world, 'sended')),
    },
    params: {
      status: fixed(
        mostly(fc.constantFrom('failed', 'delivered', 'unknown', 'read', 'x').map(str)),
      ),
      id_phone: id('phone'),
      destination: fixed(mostly(phoneNumberText.map(str))),
      origin: fixed(mostly(phoneNumberText.map(str))),
      number: fixed(mostly(phoneNumberText.map(str))),
      tag: text,
      name: fixed(mostly(likePattern)),
      originating_scheduled: id('scheduled'),
      at_from: date,
      at_to: date,
    },
  },
  {
    name: 'get_stop',
    method: 'GET',
    paths: ['/api/stop', '/api/stop/after/{cursor}'],
    segments: { cursor: pathSegment(() => [0, 1, 2]) },
    params: { page: fixed(mostly(idValue([0, 1]))), after_id: fixed(mostly(idValue([0, 1]))) },
  },
  {
    name: 'post_stop',
    method: 'POST',
    paths: ['/api/stop'],
    params: { number: fixed(mostly(phoneNumberText.map(str))) },
  },
  {
    name: 'delete_stop',
    method: 'DELETE',
    paths: ['/api/stop/{id}'],
    segments: { id: pathSegment(() => [0, 1, 2, 999_999]) },
    params: {},
  },
  { name: 'get_setting', method: 'GET', paths: ['/api/setting'], params: {} },
  {
    name: 'post_setting',
    method: 'POST',
    paths: ['/api/setting'],
    params: {
      templating: fixed(booleanValue),
      smsstop: fixed(booleanValue),
      phone_limit: fixed(booleanValue),
      default_phone_country: fixed(
        mostly(fc.constantFrom('fr', 'FR', 'gb', '', 'xx', 'france').map(str)),
      ),
      smsstop_response: text,
      phone_reliability_failed_period: fixed(
        mostly(fc.constantFrom('120', '1', '0', '525601', '2h').map(str)),
      ),
      phone_reliability_failed_grace_period: fixed(
        mostly(fc.constantFrom('1', '0', '120', '-1').map(str)),
      ),
      send_window: fixed(sendWindowSetting),
      timezone: fixed(timeZoneSetting),
      unknown_setting: fixed(fc.constantFrom('1', '').map(str)),
    },
  },
  { name: 'get_me', method: 'GET', paths: ['/api/me'], params: {} },
  { name: 'get_webhooks', method: 'GET', paths: ['/api/webhook'], params: {} },
  {
    name: 'post_webhook_test',
    method: 'POST',
    paths: ['/api/webhook/{id}/test'],
    segments: idSegment('webhook'),
    params: {},
  },
  {
    name: 'get_webhook_deliveries',
    method: 'GET',
    paths: ['/api/webhook/{id}/deliveries'],
    segments: idSegment('webhook'),
    params: { page: fixed(mostly(idValue([0, 1, 2]))) },
  },
  {
    name: 'post_webhook_delivery_retry',
    method: 'POST',
    paths: ['/api/webhook/{id}/deliveries/{delivery_id}/retry'],
    segments: {
      ...idSegment('webhook'),
      delivery_id: pathSegment(() => [0, 1, 2, 999_999]),
    },
    params: {},
  },
  ...resource('webhook', '/api/webhook', 'webhook', {
    url: fixed(
      mostly(
        fc
          .constantFrom(
            'https://203.0.113.10/x',
            'http://127.0.0.1:1/hook',
            'http://169.254.169.254/',
            'ftp://a/',
            'https://u:p@h/',
            '/relative',
          )
          .map(str),
      ),
    ),
    type: fixed(mostly(fc.constantFrom('send_sms', 'receive_sms', 'quota', 'ping', '').map(str))),
    format: fixed(mostly(fc.constantFrom('raspisms', 'standard', 'json').map(str))),
    secret: text,
    enabled: fixed(booleanValue),
  }),
];

const FILE_NAMES = [
  'a.png',
  'photo.JPG',
  'x.html',
  'y.svg',
  'z.xhtml',
  'noext',
  '',
  '.htaccess',
  '../../evil.png',
  'a"b.png',
  'é.png',
  'a.php',
  'x.html.png',
  'long'.repeat(100) + '.png',
  'c.csv',
];
const FILE_TYPES = [
  'image/png',
  'image/jpeg',
  'text/html',
  'image/svg+xml',
  'application/octet-stream',
  'text/plain; charset=utf-8',
  'text/csv',
  '',
  'application/x-php',
];
const CONTENTS = [
  PNG,
  Buffer.alloc(0),
  Buffer.from('<script>alert(document.domain)</script>'),
  Buffer.from('number,firstname\n+33612345678,John\n'),
  Buffer.from([0, 255, 254, 0]),
];

export const fileParts: fc.Arbitrary<FilePart[]> = fc.array(
  fc.record({
    field: fc.constantFrom(
      'medias[]',
      'medias',
      'medias[0]',
      'medias[a][b]',
      'numbers_csv',
      'numbers_csv[]',
      'text',
      'id_phone',
      'api_key',
    ),
    filename: fc.constantFrom(...FILE_NAMES),
    type: fc.constantFrom(...FILE_TYPES),
    content: fc.constantFrom(...CONTENTS),
  }),
  { maxLength: 3 },
);

/** One generated call of an operation, before it is assembled into a request. */
interface OperationCase {
  path: string;
  query: Entry[];
  body: Entry[];
  encoding: BodyEncoding;
  listStyle: 'push' | 'indexed';
  auth: Auth;
  files: FilePart[];
}

function fillPath(template: string, values: Record<string, string>, slash: boolean): string {
  const path = template.replace(/\{(\w+)\}/g, (_match, name: string) => values[name] ?? '1');
  return slash ? `${path}/` : path;
}

function operationArbitrary(operation: Operation, world: World): fc.Arbitrary<OperationCase> {
  const segmentNames = Object.keys(operation.segments ?? {});
  const segments = fc.tuple(...segmentNames.map((name) => operation.segments![name](world)));
  const paramNames = Object.keys(operation.params);
  // Each parameter is present or not, and goes to the body, the query or both.
  const paramsWith = (values: Record<string, fc.Arbitrary<Value>>) =>
    fc.tuple(
      ...paramNames.map((name) =>
        fc.option(
          fc.tuple(
            fc.constant(name),
            values[name],
            fc.constantFrom('body', 'body', 'body', 'query', 'both'),
          ),
          {
            freq: 2,
          },
        ),
      ),
    );
  const generic = Object.fromEntries(
    paramNames.map((name) => [name, operation.params[name](world)]),
  );
  // Phone data mostly matches the adapter named, so that the adapters' own checks run.
  const params =
    'adapter' in operation.params
      ? fc.constantFrom(...ADAPTERS).chain((adapter) =>
          paramsWith({
            ...generic,
            adapter: fc.oneof({ weight: 4, arbitrary: fc.constant(str(adapter)) }, generic.adapter),
            adapter_data: fc.oneof(
              { weight: 4, arbitrary: adapterDataFor(adapter, world.providers) },
              fc.constantFrom(...ADAPTERS).chain((other) => adapterDataFor(other, world.providers)),
            ),
          }),
        )
      : paramsWith(generic);
  return fc
    .record({
      path: fc.constantFrom(...operation.paths),
      slash: fc.boolean(),
      segments,
      params,
      stray: strayEntries,
      encoding: fc.constantFrom<BodyEncoding>(
        ...(operation.method === 'GET'
          ? ['none' as const]
          : ['form' as const, 'json' as const, 'multipart' as const, 'none' as const]),
      ),
      listStyle: fc.constantFrom<'push' | 'indexed'>('push', 'indexed'),
      auth: authArbitrary,
      files: operation.files ? fileParts : fc.constant<FilePart[]>([]),
    })
    .map(
      ({
        path,
        slash,
        segments: values,
        params: chosen,
        stray,
        encoding,
        listStyle,
        auth,
        files,
      }) => {
        const query: Entry[] = [];
        const body: Entry[] = [];
        const present = chosen.filter(
          (param): param is [string, Value, 'body' | 'query' | 'both'] => param !== null,
        );
        for (const [name, value, place] of present) {
          if (operation.method === 'GET' || place !== 'body') {
            query.push([name, value]);
          }
          if (operation.method !== 'GET' && place !== 'query') {
            body.push([name, value]);
          }
        }
        (operation.method === 'GET' ? query : body).push(...stray);
        const named = Object.fromEntries(segmentNames.map((name, index) => [name, values[index]]));
        return {
          path: fillPath(path, named, slash),
          query,
          body,
          encoding: encoding === 'none' && files.length ? 'multipart' : encoding,
          listStyle,
          auth:
            encoding === 'none' && auth.form !== undefined ? { ...auth, form: undefined } : auth,
          files: encoding === 'multipart' || encoding === 'none' ? files : [],
        };
      },
    );
}

function operationFamily(operation: Operation, weight: number): Family {
  return family(
    `op-${operation.name.replace(/_/g, '-')}`,
    weight,
    (world) => operationArbitrary(operation, world),
    async (probe, value) => {
      const wire = assemble({ method: operation.method, ...value });
      const secrets = [...value.body, ...value.query].flatMap(([, item]) => secretsIn(item));
      await probe.send(wire, { secrets });
    },
  );
}

const HEAVY = ['post_scheduled', 'post_phone', 'post_update_phone', 'get_entries'];

export const operationFamilies: Family[] = OPERATIONS.map((operation) =>
  operationFamily(operation, HEAVY.includes(operation.name) ? 6 : 3),
);
