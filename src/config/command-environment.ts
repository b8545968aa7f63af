/**
 * The whole environment of a command smsgw runs (gammu): the PATH it is looked up on and
 * `extra`. Never the server's own environment, which holds secrets (DATABASE_URL with its
 * password, provider keys) that a command, or a configuration file it reads, could leak.
 */
export function commandEnvironment(
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  const path = process.env.PATH;
  return path === undefined ? { ...extra } : { PATH: path, ...extra };
}
