import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { EnvelopeExpressAdapter } from './common/http/envelope.adapter';
import { answerMalformedRequests } from './common/http/malformed-requests';
import { quietFrameworkStartup } from './common/logging/framework-startup';
import { OPERATOR_PATHS } from './common/http/operator-paths';
import { AppConfig } from './config/configuration';
import { measureRequests } from './metrics/http-metrics';
import { MetricsService } from './metrics/metrics.service';
import { setUpOpenApi } from './openapi';

/** How the application is created: a failure to start rejects, for the caller to tell. */
export const APP_OPTIONS = {
  bodyParser: false,
  bufferLogs: true,
  abortOnError: false,
  autoFlushLogs: false,
} as const;

/**
 * Builds the HTTP application (not listening yet): used by `main.ts`, which lets it read the
 * configuration from the environment, and by the e2e tests, which give theirs.
 */
export async function createApp(given?: AppConfig): Promise<NestExpressApplication> {
  return configureApp(
    await NestFactory.create<NestExpressApplication>(
      AppModule.forRoot(given),
      new EnvelopeExpressAdapter(),
      APP_OPTIONS,
    ),
  );
}

/**
 * Everything the HTTP application needs beyond its modules: logger, middleware, prefix,
 * OpenAPI, shutdown hooks. Tests that replace a provider create the app from their testing
 * module and configure it here, as createApp does.
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get(AppConfig);
  app.useLogger(quietFrameworkStartup(app.get(Logger)));
  app.flushLogs();
  const metrics = app.get(MetricsService);
  if (metrics.enabled) {
    app.use(measureRequests(metrics));
  }
  answerMalformedRequests(app);
  // The query string is parsed by the body parsers, with each request's parameter budget.
  app.set('query parser', false);
  app.set('x-powered-by', false);
  // The client address that sign-in attempts are counted by, and whether a request came over
  // HTTPS (the session cookie's Secure), through the proxies the operator trusts.
  app.set('trust proxy', config.trustProxy);
  // API answers are never cached by validators: hashing every body for an ETag is wasted work.
  app.set('etag', false);
  if (config.basePath) {
    app.setGlobalPrefix(config.basePath, { exclude: [...OPERATOR_PATHS] });
  }
  setUpOpenApi(app, config);
  // Exits rather than re-raising the signal, so that the log lines still pending are written.
  app.enableShutdownHooks([], { useProcessExit: true });
  return app;
}
