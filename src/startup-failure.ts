import { SecretsKeyError } from './common/secrets/secrets-key';
import { ConfigurationError } from './config/configuration-error';

/**
 * What a process that could not start prints: a configuration problem is the one line naming
 * the variables (as the CLI prints it); a known key problem is one line after `prefix`; anything
 * else comes with its stack.
 */
export function startupFailure(prefix: string, error: unknown): string {
  if (error instanceof ConfigurationError) {
    return error.message;
  }
  const told =
    error instanceof SecretsKeyError ? error.message : ((error as Error).stack ?? String(error));
  return `${prefix}: ${told}`;
}
