import { Logger, Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { join } from 'node:path';
import { AppConfig } from '../config/configuration';
import { ASSETS_FOLDER, CONSOLE_DIR, readConsolePage } from './console-files';
import { isConsoleRoute } from './console-routes';

/**
 * The page's headers: never cached, so a new build is picked up at once (its files have new
 * names); scripts and styles only from smsgw's own files, never inline, never framed.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-cache',
  'Content-Security-Policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/**
 * Serves the console (the web interface, built into dist/console/) at the root of BASE_PATH:
 * its hashed files for a year, and its page for every GET that no route of smsgw answers.
 *
 * Mounted when the modules initialise, which Nest does after registering the routes and before
 * its not-found handler: the API's requests never reach these handlers, and what these leave
 * (other methods, the API's unknown paths) still gets the envelope's 404. Not
 * @nestjs/serve-static: its fallback sends index.html from disk as is, and the page must carry
 * BASE_PATH in its `<base>`.
 */
@Module({})
export class WebConsoleModule implements OnModuleInit {
  private readonly logger = new Logger(WebConsoleModule.name);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const basePath = this.config.basePath;
    const page = readConsolePage(CONSOLE_DIR, basePath);
    if (page === undefined) {
      this.logger.warn(
        `The console is not built (${join(CONSOLE_DIR, 'index.html')} is missing): ` +
          '`npm run build` builds it.',
      );
      return;
    }
    const app = this.adapterHost.httpAdapter.getInstance<Express>();
    const assetsPath = `${basePath}/${ASSETS_FOLDER}`;
    app.use(
      assetsPath,
      express.static(join(CONSOLE_DIR, ASSETS_FOLDER), {
        index: false,
        immutable: true,
        maxAge: '365d',
        setHeaders: (response) => response.setHeader('X-Content-Type-Options', 'nosniff'),
      }),
    );
    app.use((request: Request, response: Response, next: NextFunction) => {
      if (!isPageRequest(request) || !isConsoleRoute(request.path, basePath)) {
        next();
        return;
      }
      const lower = request.path.toLowerCase();
      if (lower.startsWith(`${assetsPath.toLowerCase()}/`)) {
        // A file of another build: the page in its place would be read as a script.
        response.status(404).type('text/plain').send('Not Found\n');
        return;
      }
      response.status(200).set(PAGE_HEADERS).type('html').send(page);
    });
  }
}

function isPageRequest(request: Request): boolean {
  return request.method === 'GET' || request.method === 'HEAD';
}
