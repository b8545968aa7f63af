import 'reflect-metadata';
import { Command, CommanderError } from 'commander';
import { DataSource } from 'typeorm';
import { secretCipher } from './common/secrets/secrets-key';
import { AppConfig, loadConfig } from './config/configuration';
import { pinProcessClockToUtc } from './config/process-clock';
import { migrate, openDataSource } from './database/data-source';
import { phonesWithUnreadableSecrets, resetSecretsKey } from './database/secrets-key.check';
import { QuotaOptions, QuotaService } from './users/quota.service';
import { QuotaRepository } from './users/quota.repository';
import { UserCommandError, UsersService } from './users/users.service';
import { UsersRepository } from './users/users.repository';
import { SessionsRepository } from './sessions/sessions.repository';
import { readPassword } from './users/password-input';

/**
 * The administration CLI (README, "Administration CLI"). It opens the database of `DATABASE_URL`
 * directly, without the HTTP stack, prints results as JSON on stdout, and one line on stderr on
 * failure.
 */
export async function runCli(argv: string[], config: AppConfig = loadConfig()): Promise<number> {
  let dataSource: DataSource | undefined;
  const open = async (): Promise<DataSource> => {
    dataSource = await openDataSource(config.database, secretCipher(config));
    return dataSource;
  };
  const users = async (): Promise<UsersService> => {
    const opened = await open();
    await migrate(opened);
    return new UsersService(UsersRepository.on(opened));
  };
  const quotas = async (): Promise<QuotaService> => {
    const opened = await open();
    await migrate(opened);
    return new QuotaService(UsersRepository.on(opened), QuotaRepository.on(opened), config);
  };
  const print = (value: unknown): void => {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  };

  const program = new Command('smsgw')
    .description('smsgw administration')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  const user = program.command('user').description('manage users');
  user
    .command('create')
    .description('create a user and print it with its API key (shown only this once)')
    .requiredOption('--email <email>', 'e-mail of the user')
    .option('--api-key <key>', 'use this 32-hex-character key instead of a random one')
    .option('--admin', 'make the user an administrator', false)
    .option('--status <status>', 'active or suspended', 'active')
    .option('--password-stdin', 'read a password for the console from standard input', false)
    .action(
      async (options: {
        email: string;
        apiKey?: string;
        admin: boolean;
        status: string;
        passwordStdin: boolean;
      }) => {
        const password = options.passwordStdin ? await readPassword() : undefined;
        print(await (await users()).create({ ...options, password }));
      },
    );
  user
    .command('password')
    .description(
      "set a user's console password, read from standard input (first line); their sessions end",
    )
    .requiredOption('--email <email>', 'e-mail of the user')
    .action(async (options: { email: string }) => {
      const password = await readPassword();
      const opened = await open();
      await migrate(opened);
      const account = await new UsersService(UsersRepository.on(opened)).setPassword(
        options.email,
        password,
      );
      // A password changes because the old one may be known: whoever signed in with it is out.
      await SessionsRepository.on(opened).endAllOf(account.id);
      print(account);
    });
  user
    .command('sessions')
    .description("manage a user's console sessions")
    .command('end')
    .description('end every console session of a user')
    .requiredOption('--email <email>', 'e-mail of the user')
    .action(async (options: { email: string }) => {
      const opened = await open();
      await migrate(opened);
      const account = await new UsersService(UsersRepository.on(opened)).require(options.email);
      const ended = await SessionsRepository.on(opened).endAllOf(account.id);
      print({ ...account, sessions_ended: ended });
    });
  user
    .command('list')
    .description('list users (without keys)')
    .action(async () => print(await (await users()).list()));
  user
    .command('status')
    .description('set the status of a user')
    .requiredOption('--email <email>', 'e-mail of the user')
    .argument('<status>', 'active or suspended')
    .action(async (status: string, options: { email: string }) =>
      print(await (await users()).setStatus(options.email, status)),
    );
  user
    .command('rotate-key')
    .description('give a user a new API key and print it; the old key stops working')
    .requiredOption('--email <email>', 'e-mail of the user')
    .action(async (options: { email: string }) =>
      print(await (await users()).rotateKey(options.email)),
    );

  const setting = program.command('setting').description("manage a user's settings");
  setting
    .command('set')
    .description('set one setting of a user')
    .requiredOption('--email <email>', 'e-mail of the user')
    .argument('<name>', 'setting name, such as mms or phone_limit')
    .argument('<value>', 'setting value')
    .action(async (name: string, value: string, options: { email: string }) =>
      print(await (await users()).setSetting(options.email, name, value)),
    );
  setting
    .command('list')
    .description('list the settings of a user, defaults included')
    .requiredOption('--email <email>', 'e-mail of the user')
    .action(async (options: { email: string }) =>
      print(await (await users()).settings(options.email)),
    );

  const quota = program
    .command('quota')
    .description("manage a user's sending quota (SMS segments per period)");
  quota
    .command('set')
    .description('give a user a quota, or change it, and print it')
    .requiredOption('--email <email>', 'e-mail of the user')
    .requiredOption('--credit <n>', 'segments the user may send per period')
    .option('--additional <n>', 'segments on top of the credit', '0')
    .option(
      '--start <datetime>',
      "start of the period, 'YYYY-MM-DD HH:MM:SS' in the service time zone (default: now)",
    )
    .option(
      '--renew-interval <duration>',
      'length of a period, an ISO 8601 duration such as P1M, P1W or P1D',
      'P1M',
    )
    .option('--auto-renew', 'start a new period when one ends', false)
    .option('--report-unused', 'carry the unused credit over as additional credit', false)
    .option('--report-unused-additional', 'carry the unused additional credit over as well', false)
    .action(async (options: QuotaOptions & { email: string }) =>
      print(await (await quotas()).set(options.email, options)),
    );
  quota
    .command('show')
    .description("print a user's quota as it stands now")
    .requiredOption('--email <email>', 'e-mail of the user')
    .action(async (options: { email: string }) =>
      print(await (await quotas()).show(options.email)),
    );
  quota
    .command('remove')
    .description("remove a user's quota: the user then sends without limit")
    .requiredOption('--email <email>', 'e-mail of the user')
    .action(async (options: { email: string }) =>
      print(await (await quotas()).remove(options.email)),
    );

  const secrets = program
    .command('secrets')
    .description("manage the key that encrypts the phones' provider credentials");
  secrets
    .command('reset-key')
    .description(
      "make the configured key (SECRETS_KEY, else DATA_DIR/secrets.key) the database's when " +
        'the old one is lost, and list the phones whose credentials must be entered again',
    )
    .option('--confirm', 'confirm that the old key is lost', false)
    .action(async (options: { confirm: boolean }) => {
      if (!options.confirm) {
        throw new Error(
          "this gives up the key the phones' credentials were encrypted with: they will have " +
            'to be entered again. Run it again with --confirm if that key is lost.',
        );
      }
      const opened = await open();
      const replaced = await resetSecretsKey(opened);
      await migrate(opened);
      print({
        key_replaced: replaced,
        phones_to_update: await phonesWithUnreadableSecrets(opened),
      });
    });

  program
    .command('migrate')
    .description('run pending database migrations')
    .action(async () => {
      const applied = await migrate(await open());
      print({ applied });
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed its own one-line message (or the help).
      return error.exitCode;
    }
    const message =
      error instanceof UserCommandError ? error.message : `smsgw: ${describeError(error)}`;
    process.stderr.write(`${message}\n`);
    return 1;
  } finally {
    await dataSource?.destroy();
  }
}

/** Entry point of the `smsgw` bin. */
export function main(): void {
  pinProcessClockToUtc();
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
  void runCli(process.argv.slice(2), config).then((code) => {
    // process.exit() drops what a pipe has not taken yet (a long `user list` piped to a file
    // was cut at 64 KiB): exit once stdout and stderr have flushed everything written so far.
    let pending = 2;
    const flushed = (): void => {
      pending -= 1;
      if (pending === 0) {
        process.exit(code);
      }
    };
    process.stdout.write('', flushed);
    process.stderr.write('', flushed);
  });
}

/**
 * One line saying what went wrong: driver messages may span lines, and a connection refused on
 * every address of a host name is an AggregateError whose own message is empty.
 */
function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(describeError).join('; ');
  }
  const text =
    error instanceof Error
      ? error.message || (error as NodeJS.ErrnoException).code || error.name
      : String(error);
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
