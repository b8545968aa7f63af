import request from 'supertest';
import { AdapterRegistry } from '../../src/adapters/adapter.registry';
import { startApp, TestApp } from '../support/app';
import { createTestDatabase, TestDatabase } from '../support/databases';

interface Schema {
  type?: string;
  title?: string;
  enum?: string[];
  description?: string;
  required?: string[];
  properties?: Properties;
  anyOf?: Schema[];
}
type Properties = Record<string, Schema>;

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Every route Express serves, as OpenAPI would name it (`:id` → `{id}`). */
function servedRoutes(t: TestApp): Array<{ method: string; path: string }> {
  const express = t.app.getHttpAdapter().getInstance() as { router: { stack: RouteLayer[] } };
  return express.router.stack.flatMap((layer) =>
    layer.route
      ? Object.keys(layer.route.methods).map((method) => ({
          method,
          path: layer.route!.path.replace(/:(\w+)/g, '{$1}'),
        }))
      : [],
  );
}

describe('OpenAPI document', () => {
  let database: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    t = await startApp(database);
  });
  afterAll(async () => {
    await t.close();
    await database.drop();
  });

  it('describes every API route the application serves, with an operation id and the envelope', async () => {
    const response = await request(t.url).get('/api/docs-json');
    expect(response.status).toBe(200);
    const document = response.body as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId?: string;
            responses: Record<
              string,
              { content: Record<string, { schema: { required: string[] } }> }
            >;
          }
        >
      >;
    };
    const apiRoutes = servedRoutes(t).filter(
      (route) => route.path.startsWith('/api/') && !route.path.startsWith('/api/docs'),
    );
    expect(apiRoutes.length).toBeGreaterThan(0);
    for (const route of apiRoutes) {
      const operation = document.paths[route.path]?.[route.method];
      expect({ route, documented: Boolean(operation) }).toEqual({ route, documented: true });
      expect(operation.operationId).toEqual(expect.any(String));
      const success = Object.entries(operation.responses).find(([status]) =>
        status.startsWith('2'),
      );
      expect(success?.[1].content['application/json'].schema.required).toEqual([
        'error',
        'message',
        'response',
        'next',
        'prev',
      ]);
    }
  });

  it("lists the adapters' ids for `adapter` and describes each adapter's data from its descriptor", async () => {
    const response = await request(t.url).get('/api/docs-json');
    const schemaOf = (path: string, media: string) =>
      (
        response.body as {
          paths: Record<
            string,
            {
              post: {
                requestBody: { content: Record<string, { schema: { properties: Properties } }> };
              };
            }
          >;
        }
      ).paths[path].post.requestBody.content[media].schema.properties;
    const ids = t.app.get(AdapterRegistry).adapters.map((adapter) => adapter.descriptor.id);

    for (const media of ['application/x-www-form-urlencoded', 'application/json']) {
      const { adapter, adapter_data } = schemaOf('/api/phone', media);
      expect(adapter.enum).toEqual(ids);
      expect(adapter.enum).toEqual(expect.arrayContaining(['test', 'twilio', 'smpp', 'kannel']));
      expect(adapter.description).toContain('`adapters\\TwilioVirtualNumberAdapter` for twilio');
      const twilio = adapter_data.anyOf!.find((schema) => schema.title === 'twilio')!;
      expect(twilio).toMatchObject({
        type: 'object',
        additionalProperties: false,
        required: ['account_sid', 'auth_token', 'number'],
      });
      expect(twilio.properties!.auth_token).toEqual({
        type: 'string',
        description: 'Twilio auth token. Secret: stored encrypted, never listed.',
        writeOnly: true,
        format: 'password',
      });
      expect(twilio.properties!.number.description).toContain('stored in E.164');
      expect(adapter_data.anyOf!.map((schema) => schema.title)).toEqual(ids);
    }
    const update = schemaOf('/api/phone/{id}', 'application/json');
    expect(update.adapter.enum).toEqual(ids);
    expect(
      update.adapter_data.anyOf!.find((schema) => schema.title === 'twilio'),
    ).not.toHaveProperty('required');
  });

  it('serves the Swagger UI at /api/docs without an API key', async () => {
    const response = await request(t.url).get('/api/docs');
    expect(response.status).toBe(200);
    expect(response.text).toContain('swagger');
  });
});
