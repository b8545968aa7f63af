import { LoggerService } from '@nestjs/common';

/**
 * Nest's own start-up lines: one per module, controller and route (some 140), then "started".
 * At info they bury the lines a person starting the service looks for (where it serves, the
 * migrations applied); LOG_LEVEL=debug still shows them.
 */
const FRAMEWORK_STARTUP = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

function isFrameworkStartup(optionalParams: unknown[]): boolean {
  const context = optionalParams.at(-1);
  return typeof context === 'string' && FRAMEWORK_STARTUP.has(context);
}

/** `logger`, with Nest's start-up lines logged at debug rather than info. */
export function quietFrameworkStartup(logger: LoggerService): LoggerService {
  return {
    log(message: unknown, ...optionalParams: unknown[]): void {
      if (isFrameworkStartup(optionalParams) && logger.debug) {
        logger.debug(message, ...optionalParams);
      } else {
        logger.log(message, ...optionalParams);
      }
    },
    error(message: unknown, ...optionalParams: unknown[]): void {
      logger.error(message, ...optionalParams);
    },
    warn(message: unknown, ...optionalParams: unknown[]): void {
      logger.warn(message, ...optionalParams);
    },
    debug(message: unknown, ...optionalParams: unknown[]): void {
      logger.debug?.(message, ...optionalParams);
    },
    verbose(message: unknown, ...optionalParams: unknown[]): void {
      logger.verbose?.(message, ...optionalParams);
    },
    fatal(message: unknown, ...optionalParams: unknown[]): void {
      logger.fatal?.(message, ...optionalParams);
    },
  };
}
