import { Controller, Get, Res, ServiceUnavailableException, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '../common/auth/public.decorator';
import { HEALTH_PATH } from '../common/http/operator-paths';
import { PlainExceptionFilter } from '../common/http/plain-exception.filter';
import { MigrationsHealthIndicator } from './migrations.health';
import { WorkerHealthIndicator } from './worker.health';

/** How long the database may take to answer a readiness check before it counts as down. */
const DATABASE_TIMEOUT_MS = 2000;

/**
 * Liveness and readiness probes, answered with Terminus's JSON (`status`, `info`, `error`,
 * `details`), 200 or 503: for orchestrators and load balancers rather than API clients, so no
 * API key and no envelope (the response is written here, `@Res()`).
 */
@ApiExcludeController()
@Public()
@UseFilters(PlainExceptionFilter)
@Controller(HEALTH_PATH)
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly migrations: MigrationsHealthIndicator,
    private readonly worker: WorkerHealthIndicator,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Liveness: the process serves requests. It checks nothing else, so that a database outage
   * does not get the process restarted for nothing.
   */
  @Get()
  live(@Res() response: Response): Promise<void> {
    return answer(response, this.health.check([]));
  }

  /**
   * Readiness: the database answers, its schema is the one this code expects, and the dispatch
   * loop of this process, if it runs one, is not stuck.
   */
  @Get('ready')
  ready(@Res() response: Response): Promise<void> {
    return answer(
      response,
      this.health.check([
        () =>
          this.database.pingCheck('database', {
            connection: this.dataSource,
            timeout: DATABASE_TIMEOUT_MS,
          }),
        () => this.migrations.isUpToDate('migrations', DATABASE_TIMEOUT_MS),
        () => this.worker.isBeating('worker'),
      ]),
    );
  }
}

/** Terminus's result with 200, or the result it failed with and 503. */
async function answer(response: Response, check: Promise<HealthCheckResult>): Promise<void> {
  let status = 200;
  let result: unknown;
  try {
    result = await check;
  } catch (error) {
    if (!(error instanceof ServiceUnavailableException)) {
      throw error;
    }
    status = 503;
    result = error.getResponse();
  }
  response.status(status).set('Cache-Control', 'no-store').json(result);
}
