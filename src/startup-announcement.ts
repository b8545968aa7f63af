import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INestApplication, Logger } from '@nestjs/common';
import { AppConfig } from './config/configuration';

/** The URLs a person uses to reach the service. */
export interface ServedUrls {
  console: string;
  api: string;
  openapi: string;
  openapi_json: string;
}

/**
 * Where the service is reached: under PUBLIC_URL when it is set (a proxy's address), else at
 * the host it listens on, `localhost` when that is every interface.
 */
export function servedUrls(
  config: Pick<AppConfig, 'host' | 'publicUrl' | 'basePath'>,
  port: number,
): ServedUrls {
  const origin = config.publicUrl ?? `http://${hostForUrl(config.host)}:${port}`;
  const api = `${origin}${config.basePath}/api`;
  return {
    console: `${origin}${config.basePath}/`,
    api: `${api}/`,
    openapi: `${api}/docs`,
    openapi_json: `${api}/docs-json`,
  };
}

function hostForUrl(host: string): string {
  if (host === '' || host === '0.0.0.0' || host === '::') {
    return 'localhost';
  }
  return host.includes(':') ? `[${host}]` : host;
}

/** Logs, once the server listens, where it serves: what a person starting it looks for. */
export function announceStartup(app: INestApplication, config: AppConfig): void {
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  const urls = servedUrls(config, port);
  const behindProxy = config.publicUrl ? ` (listening on ${config.host}:${port})` : '';
  new Logger('smsgw').log({
    msg:
      `smsgw serves the console at ${urls.console}${behindProxy}, the API at ${urls.api}, ` +
      `its OpenAPI document at ` +
      `${urls.openapi} (JSON at ${urls.openapi_json})`,
    ...urls,
  });
}
