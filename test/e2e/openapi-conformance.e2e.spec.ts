import Ajv, { type ValidateFunction } from 'ajv';
import request, { Response } from 'supertest';
import { WebhookDelivery } from '../../src/events/entities/webhook-delivery.entity';
import { User } from '../../src/users/entities/user.entity';
import { hashPassword } from '../../src/users/password';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import {
  makeConditionalGroup,
  makeContact,
  makeGroup,
  makePhone,
  makePhoneGroup,
  makeReceived,
  makeScheduled,
  makeSended,
  makeUser,
} from '../support/factories';

interface Operation {
  operationId: string;
  parameters?: Array<{ name: string; in: string; schema?: { enum?: string[] } }>;
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

/** Who a request comes from: a key, a signed-in session, or nobody. */
type Caller = { apiKey: string } | { cookie: string; csrf: string } | null;

interface Call {
  path?: Record<string, string | number>;
  query?: Record<string, string | number>;
  body?: object;
}

const PASSWORD = 'correct horse battery';

/** The id a creation answered: the entry's id, or the entry with its id. */
function idOf(response: Response): number {
  const created = response.body.response as number | { id: number };
  if (typeof created === 'number') {
    return created;
  }
  if (typeof created?.id === 'number') {
    return created.id;
  }
  throw new Error(`no id in ${JSON.stringify(response.body)}`);
}

/**
 * Real answers of every operation the OpenAPI document lists, checked against the schema the
 * document declares for their status: the document cannot drift from what the API sends, and a
 * new operation without a request here fails the spec.
 */
describeEachDatabase('the OpenAPI document matches real answers', (database) => {
  let t: TestApp;
  let document: OpenApiDocument;
  const operations = new Map<string, { method: string; path: string; operation: Operation }>();
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const validators = new Map<string, ValidateFunction>();
  /** Operations answered with a success, whose bodies matched. */
  const succeeded = new Set<string>();
  const failures: string[] = [];

  beforeAll(async () => {
    t = await startApp(database());
    document = (await request(t.url).get('/api/docs-json').expect(200)).body as OpenApiDocument;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        operations.set(operation.operationId, { method, path, operation });
      }
    }
  });
  afterAll(async () => {
    await t.close();
  });

  /** Makes the request of `operationId` by its path in the document, and checks its answer. */
  async function call(
    operationId: string,
    caller: Caller,
    { path = {}, query = {}, body }: Call = {},
  ): Promise<Response> {
    const listed = operations.get(operationId);
    if (!listed) {
      throw new Error(`${operationId} is not an operation of the document`);
    }
    const url = listed.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (path[name] === undefined) {
        throw new Error(`${operationId}: no value for the path parameter ${name}`);
      }
      return encodeURIComponent(String(path[name]));
    });
    let pending = request(t.url)[listed.method as 'get' | 'post' | 'delete'](url).query(query);
    if (caller && 'apiKey' in caller) {
      pending = pending.set('X-Api-Key', caller.apiKey);
    } else if (caller) {
      pending = pending.set('Cookie', caller.cookie).set('X-CSRF-Token', caller.csrf);
    }
    const response = body === undefined ? await pending : await pending.send(body);
    check(operationId, listed.operation, response);
    return response;
  }

  function check(operationId: string, operation: Operation, response: Response): void {
    const where = `${operationId} → ${response.status}`;
    const schema =
      operation.responses[String(response.status)]?.content?.['application/json']?.schema;
    if (!schema) {
      failures.push(`${where}: the document declares no JSON answer for this status`);
      return;
    }
    const key = `${operationId} ${response.status}`;
    const validate = validators.get(key) ?? ajv.compile(schema);
    validators.set(key, validate);
    if (!validate(response.body)) {
      failures.push(
        `${where}: ${ajv.errorsText(validate.errors, { separator: '; ' })} in ` +
          JSON.stringify(response.body).slice(0, 500),
      );
    } else if (response.status < 300) {
      succeeded.add(operationId);
    }
  }

  /** A user with a password and a key, and a session they signed in with. */
  async function aUser() {
    const { user, apiKey } = await makeUser(t.dataSource);
    await t.dataSource
      .getRepository(User)
      .update({ id: user.id }, { password_hash: await hashPassword(PASSWORD) });
    const login = await call('post_login', null, {
      body: { email: user.email, password: PASSWORD },
    });
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    const session = { cookie, csrf: login.body.response.csrf_token as string };
    return { user, key: { apiKey }, session };
  }

  it('answers every listed operation as the document describes, success and failures', async () => {
    const ds = t.dataSource;
    const { user, key, session } = await aUser();
    const id = user.id;

    await call('get_session', session);
    await call('get_me', key);
    await call('get_usage', key);
    await call('get_setting', key);
    await call('get_setting_definitions', session);
    await call('post_setting', key, { body: { templating: '1' } });
    await call('get_sms_status_stats', key, {
      query: { start: '2026-01-01', end: '2026-12-31' },
    });
    const invalidNumbers = { volume: 1, percent_failed: 0, percent_unknown: 0 };
    await call('get_invalid_numbers', key, { query: invalidNumbers });
    await call('get_invalid_numbers_page', key, { path: { page: 0 }, query: invalidNumbers });

    await call('get_adapters', key);
    await call('get_adapters', session);
    const phone = {
      id: idOf(await call('post_phone', key, { body: { name: 'conformance', adapter: 'test' } })),
    };
    await call('post_update_phone', key, { path: { id: phone.id }, body: { name: 'renamed' } });
    await call('get_phone', key, { path: { id: phone.id } });
    await call('get_phone', session, { path: { id: phone.id } });
    // With a secret set, and one that no longer decrypts: both answers match the schema.
    const kannel = await makePhone(t.dataSource, id, {
      adapter: 'kannel',
      callback_token: 'conformance-token',
      adapter_data: JSON.stringify({
        kannel_sendsms_url: 'http://kannel.example/cgi-bin/sendsms',
        username: 'smsgw',
        password: 'secret',
        from: 'smsgw',
      }),
    });
    await call('get_phone', key, { path: { id: kannel.id } });
    const spoilt = await makePhone(t.dataSource, id, { adapter: 'kannel' });
    await ds.query('UPDATE phone SET adapter_data = ? WHERE id = ?', [
      JSON.stringify({ password: 'enc:v1:sealed:elsewhere' }),
      spoilt.id,
    ]);
    await call('get_phone', key, { path: { id: spoilt.id } });
    await call('post_phone_callback_token', key, { path: { id: phone.id } });
    await call('post_update_phone_status', key, { path: { id: phone.id } });
    await call('post_change_phone_status', key, {
      path: { id: phone.id },
      body: { status: 'available' },
    });
    await ds.query(
      'INSERT INTO phone_reliability_history (id_user, id_phone, type, total, unreliable, ' +
        "created_at) VALUES (?, ?, 'failed', 40, 9, '2026-03-01 10:00:00'), " +
        "(?, ?, 'unknown', NULL, NULL, '2026-02-01 10:00:00')",
      [id, phone.id, id, phone.id],
    );
    await call('get_reliability_stats', key, { query: { start: '2026-01-01', end: '2026-12-31' } });
    await call('get_reliability_stats', key, { query: { start: '2026-01-01' } });
    await call('get_daily_stats', key, { query: { start: '2026-01-01', end: '2026-01-03' } });
    await call('get_daily_stats', key, { query: { start: '2026-01-03', end: '2026-01-01' } });
    await call('get_queue_stats', key);
    const phoneGroup = await call('post_phone_group', key, {
      body: { name: 'conformance phones', phones: [phone.id] },
    });
    const phoneGroupId = idOf(phoneGroup);
    await call('get_phone_group', key, { path: { id: phoneGroupId } });
    await call('post_update_phone_group', key, {
      path: { id: phoneGroupId },
      body: { name: 'renamed phones' },
    });

    const contact = await call('post_contact', key, {
      body: { name: 'Conformance', number: '+33612345678', data: { firstname: 'Ada' } },
    });
    const contactId = idOf(contact);
    await call('get_contact', key, { path: { id: contactId } });
    await call('post_update_contact', key, { path: { id: contactId }, body: { name: 'Ada' } });
    await call('post_import_contacts', key, {
      body: { contacts: [{ name: 'Imported', number: '+33612345679' }] },
    });
    const group = await call('post_group', key, {
      body: { name: 'conformance group', contacts: [contactId] },
    });
    const groupId = idOf(group);
    await call('get_group', key, { path: { id: groupId } });
    await call('post_update_group', key, { path: { id: groupId }, body: { name: 'renamed' } });
    const condition = 'contact.firstname == "Ada"';
    await call('get_conditional_group_preview', key, { query: { condition } });
    const conditional = await call('post_conditional_group', key, {
      body: { name: 'conformance condition', condition },
    });
    const conditionalId = idOf(conditional);
    await call('get_conditional_group', key, { path: { id: conditionalId } });
    await call('get_conditional_group_contacts', key, { path: { id: conditionalId } });
    await call('post_update_conditional_group', key, {
      path: { id: conditionalId },
      body: { name: 'renamed condition' },
    });

    await call('post_scheduled_preview', key, {
      body: { text: 'Hello {{ contact.firstname }}', id_contact: contactId },
    });
    const scheduled = await call('post_scheduled', key, {
      body: {
        text: 'Hello',
        numbers: ['+33612345678'],
        contacts: [contactId],
        groups: [groupId],
        conditional_groups: [conditionalId],
        tag: 'conformance',
        at: '2099-01-01 10:00:00',
      },
    });
    const scheduledId = idOf(scheduled);
    await call('get_scheduled', key, { path: { id: scheduledId } });
    await call('post_update_scheduled', key, {
      path: { id: scheduledId },
      body: { text: 'Hello again' },
    });
    await call('get_send_sms', key, { query: { text: 'Now', to: '+33612345678' } });

    const sended = await makeSended(ds, id, { id_phone: phone.id });
    const received = await makeReceived(ds, id, { id_phone: phone.id });
    await makeScheduled(ds, id, { numbers: [{ number: '+33612345678' }] });
    await makeContact(ds, id);
    await makeGroup(ds, id);
    await makeConditionalGroup(ds, id);
    await makePhoneGroup(ds, id);
    await makePhone(ds, id);
    await call('get_sended', key, { path: { id: sended.id } });
    await call('get_received', key, { path: { id: received.id } });
    await call('post_update_received', key, {
      path: { id: received.id },
      body: { status: 'read' },
    });
    await call('get_conversations', key);
    await call('get_conversations', session);
    await call('get_conversation', key, { path: { number: '+33612345678' } });
    await call('post_conversation_read', session, { path: { number: '+33612345678' } });
    const entryTypes = operations
      .get('get_entries')!
      .operation.parameters!.find((parameter) => parameter.name === 'entry_type')!.schema!.enum!;
    for (const entryType of entryTypes) {
      await call('get_entries', key, { path: { entry_type: entryType } });
      await call('get_entries', session, { path: { entry_type: entryType } });
      await call('get_entries_page', key, { path: { entry_type: entryType, page: 0 } });
      await call('get_entries_after', key, { path: { entry_type: entryType, after_id: 0 } });
      await call('get_entries_before', key, {
        path: { entry_type: entryType, before_id: 1_000_000 },
      });
    }

    const stop = await call('post_stop', key, { body: { number: '+33699999999' } });
    await call('get_stop', key);

    const webhook = await call('post_webhook', key, {
      body: { url: 'http://127.0.0.1:9/hook', type: 'receive_sms' },
    });
    const webhookId = idOf(webhook);
    await call('get_webhooks', key);
    await call('get_webhook', key, { path: { id: webhookId } });
    await call('post_update_webhook', key, { path: { id: webhookId }, body: { enabled: '1' } });
    const ping = await call('post_webhook_test', key, { path: { id: webhookId } });
    // The worker is off: two attempts, one unanswered and one answered, are written by hand so
    // that the log's attempt_log is checked against its schema.
    await ds.query(
      'INSERT INTO webhook_attempt (id_delivery, started_at, duration_ms, http_status, answer, error) ' +
        'VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)',
      [
        ...[idOf(ping), '2030-01-31 08:30:00', 12, null, null, 'Could not reach the endpoint.'],
        ...[idOf(ping), '2030-01-31 08:31:00', 7, 200, 'ok', null],
      ],
    );
    await call('get_webhook_deliveries', key, { path: { id: webhookId } });
    // A delivery must have failed to be retried; the worker is off, so it is failed by hand.
    await ds.getRepository(WebhookDelivery).update({ id: idOf(ping) }, { status: 'failed' });
    await call('post_webhook_delivery_retry', key, {
      path: { id: webhookId, delivery_id: idOf(ping) },
    });

    await call('delete_webhook', key, { path: { id: webhookId } });
    await call('delete_stop', key, {
      path: { id: idOf(stop) },
    });
    await call('delete_sended', key, { path: { id: sended.id } });
    await call('delete_received', key, { path: { id: received.id } });
    await call('delete_scheduled', key, { path: { id: scheduledId } });
    await call('delete_conditional_group', key, { path: { id: conditionalId } });
    await call('delete_group', key, { path: { id: groupId } });
    await call('delete_contact', key, { path: { id: contactId } });
    await call('delete_phone_group', key, { path: { id: phoneGroupId } });
    await call('delete_phone', key, { path: { id: phone.id } });

    await call('post_me_api_key', session, { body: { password: PASSWORD } });
    await call('post_me_password', session, {
      body: { current_password: PASSWORD, new_password: `${PASSWORD} again` },
    });
    const other = await aUser();
    await call('post_logout', other.session);

    // Failures: their envelopes match the document too.
    const failed = [
      await call('get_me', null),
      await call('get_session', null),
      await call('post_login', null, { body: { email: user.email, password: 'not the password' } }),
      await call('get_me', { apiKey: 'not a key' }),
      await call('post_logout', other.session),
      await call('post_contact', other.key, { body: { name: 'No number' } }),
      await call('post_scheduled', other.key, { body: {} }),
      await call('post_scheduled_preview', other.key, { body: { text: 'Hi', id_contact: 0 } }),
      await call('get_entries', other.key, { path: { entry_type: 'sended' }, query: { page: -1 } }),
      await call('get_contact', other.key, { path: { id: 999_999 } }),
      await call('get_conversation', other.key, {
        path: { number: 'not a number at all, too long' },
      }),
      await call('post_update_phone', other.key, { path: { id: 999_999 }, body: {} }),
      await call('get_phone', other.key, { path: { id: 999_999 } }),
    ];
    expect(failed.map((response) => response.status)).toEqual([
      401, 401, 401, 401, 401, 400, 400, 400, 400, 404, 400, 404, 404,
    ]);
    expect(failures).toEqual([]);
  });

  it('has a request with a success answer for every operation the document lists', () => {
    const uncovered = [...operations.keys()].filter((operationId) => !succeeded.has(operationId));
    expect(uncovered).toEqual([]);
  });
});
