import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { EnvelopeExpressAdapter } from './common/http/envelope.adapter';
import { answerMalformedRequests } from './common/http/malformed-requests';
import { OPERATOR_PATHS } from './common/http/operator-paths';
import { AppConfig } from './config/configuration';
import { measureRequests } from './metrics/http-metrics';
import { MetricsService } from './metrics/metrics.service';
import { setUpOpenApi } from './openapi';

/**
 * Builds the HTTP application (not listening yet): used by `main.ts`, which lets it read the
 * configuration from the environment, and by the e2e tests, which give theirs.
 */
export async function createApp(given?: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(given),
    new EnvelopeExpressAdapter(),
    // A failure to start rejects, for the caller to tell, rather than Nest's console logger.
    { bodyParser: false, bufferLogs: true, abortOnError: false, autoFlushLogs: false },
  );
  const config = app.get(AppConfig);
  app.useLogger(app.get(Logger));
  app.flushLogs();
  const metrics = app.get(MetricsService);
  if (metrics.enabled) {
    app.use(measureRequests(metrics));
  }
  answerMalformedRequests(app);
  // The query string is parsed by the body parsers, with each request's parameter budget.
  app.set('query parser', false);
  app.set('x-powered-by', false);
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
