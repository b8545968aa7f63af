import { LoggerService } from '@nestjs/common';
import { quietFrameworkStartup } from './framework-startup';

describe('quietFrameworkStartup', () => {
  const calls: Array<[string, unknown[]]> = [];
  const record =
    (level: string) =>
    (...args: unknown[]) =>
      calls.push([level, args]);
  const inner: LoggerService = {
    log: record('log'),
    error: record('error'),
    warn: record('warn'),
    debug: record('debug'),
    verbose: record('verbose'),
    fatal: record('fatal'),
  };
  beforeEach(() => calls.splice(0));

  it.each(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication'])(
    "logs Nest's start-up lines (%s) at debug",
    (context) => {
      quietFrameworkStartup(inner).log('Mapped {/api/usage, GET} route', context);

      expect(calls).toEqual([['debug', ['Mapped {/api/usage, GET} route', context]]]);
    },
  );

  it('keeps every other line at its level', () => {
    const logger = quietFrameworkStartup(inner);
    logger.log('Applied migrations: X', 'DatabaseModule');
    logger.log({ msg: 'no context' });
    logger.warn('careful', 'RouterExplorer');
    logger.error('failed', 'stack', 'NestApplication');

    expect(calls).toEqual([
      ['log', ['Applied migrations: X', 'DatabaseModule']],
      ['log', [{ msg: 'no context' }]],
      ['warn', ['careful', 'RouterExplorer']],
      ['error', ['failed', 'stack', 'NestApplication']],
    ]);
  });
});
