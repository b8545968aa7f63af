import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AdapterRegistry } from './adapters/adapter.registry';
import { AppConfig } from './config/configuration';
import { describeAdapters } from './phones/phones.openapi';

/**
 * The OpenAPI document and Swagger UI at `/api/docs` (JSON at `/api/docs-json`). The document is
 * built at its first request, not at start: most processes never serve it, and it is the
 * largest thing a boot would otherwise hold.
 */
export function setUpOpenApi(app: INestApplication, config: AppConfig): void {
  SwaggerModule.setup(`${config.basePath}/api/docs`, app, () => openApiDocument(app), {
    useGlobalPrefix: false,
  });
}

/**
 * The document `/api/docs-json` serves; the build also writes it to a file (openapi-document.ts),
 * which the console's client is generated from.
 */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('smsgw')
      .setDescription(
        'A self-hosted SMS/MMS gateway with a RaspiSMS-compatible API. Every response is the ' +
          'envelope {error, message, response, next, prev}. Authenticate with the `api_key` query ' +
          'or form parameter, or the `X-Api-Key` header; the console signs in with a session cookie (post_login).',
      )
      .setVersion('1')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }, 'header')
      .addApiKey({ type: 'apiKey', in: 'query', name: 'api_key' }, 'query')
      .addCookieAuth(
        'smsgw_session',
        {
          type: 'apiKey',
          in: 'cookie',
          description:
            "The console's session, used only when no key is given; requests that change " +
            'anything (POST, DELETE, get_send_sms) carry its csrf_token as X-CSRF-Token.',
        },
        'session',
      )
      .addSecurityRequirements('header')
      .addSecurityRequirements('query')
      .build(),
  );
  describeAdapters(
    document,
    app.get(AdapterRegistry).adapters.map((adapter) => adapter.descriptor),
  );
  return document;
}
