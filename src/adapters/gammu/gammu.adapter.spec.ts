import { Logger } from '@nestjs/common';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  RecordingSink,
  adapterConfig,
  expectStopToAwaitHeldRound,
  outgoingSms,
  trackListening,
} from '../../../test/support/adapters.factories';
import { ListenedPhone } from '../adapter';
import { GammuAdapter } from './gammu.adapter';

/*
 * A fake `gammu` first on the PATH, a node script. It behaves as the `key=value` lines of the
 * configuration file it is given say, and appends each call's whole environment and arguments,
 * as JSON, to <config>.calls:
 * - identify=ok|fail|hang; security=<what getsecuritystatus prints>; pin=<the SIM's PIN>;
 * - send=ok|two-parts|noref|hang|exit:<code>:<error>|partial:<code>:<error>|hang-after-part|
 *   network:<error> (the network refuses the first part with that error, and gammu exits -1),
 *   sendDelayMs=<ms>, and exclusive=1 to refuse a second gammu while one runs, as gammu does
 *   while another holds the device;
 * - the SIM memory is <config>.memory.json, printed by getallsms in gammu's documented format
 *   (listing marks unread messages read, as modems do) and emptied location by location by
 *   `deletesms 0 <location>`; getallsms=exit:<code>:<error> fails the listing, and
 *   <config>.deletefailures holds how many deletions fail.
 */
const FAKE_GAMMU = `#!${process.execPath}
const fs = require('node:fs');
const [, , , config, command, ...rest] = process.argv;
const settings = Object.fromEntries(
  fs.readFileSync(config, 'utf8').split('\\n').filter((line) => line.includes('='))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);
fs.appendFileSync(config + '.calls',
  JSON.stringify({ env: process.env, args: process.argv.slice(2) }) + '\\n');
const fail = (code, error) => { process.stderr.write(error + '\\n'); process.exit(Number(code)); };
const failAs = (setting) => { const [, code, ...error] = setting.split(':'); fail(code, error.join(':')); };
const hang = () => setInterval(() => undefined, 60000);
if (settings.exclusive) {
  try { fs.writeFileSync(config + '.busy', '', { flag: 'wx' }); }
  catch { fail(105, 'Error opening device, it is already opened by other application.'); }
  process.on('exit', () => fs.rmSync(config + '.busy', { force: true }));
}
const memoryFile = config + '.memory.json';
const memory = () => fs.existsSync(memoryFile) ? JSON.parse(fs.readFileSync(memoryFile, 'utf8')) : [];
const sent = (part, of, reference) =>
  'Sending SMS ' + part + '/' + of + '....waiting for network answer..OK, message reference=' + reference + '\\n';
const commands = {
  identify() {
    if (settings.identify === 'ok') { process.stdout.write('Manufacturer         : Fake\\n'); return; }
    if (settings.identify === 'hang') { hang(); return; }
    fail(104, "Error opening device, it doesn't exist.");
  },
  getsecuritystatus() { process.stdout.write((settings.security || '') + '\\n'); },
  entersecuritycode() {
    if (rest[0] !== 'PIN' || rest[1] !== settings.pin) fail(123, 'Security error while entering the code.');
  },
  sendsms() {
    const send = settings.send || 'ok';
    process.stderr.write('If you want break, press Ctrl+C...\\n');
    if (send === 'ok') process.stdout.write(sent(1, 1, 42));
    else if (send === 'two-parts') process.stdout.write(sent(1, 2, 42) + sent(2, 2, 43));
    else if (send === 'noref') process.stdout.write('Sending SMS 1/1....waiting for network answer\\n');
    else if (send === 'hang') hang();
    else if (send === 'hang-after-part') { process.stdout.write(sent(1, 2, 42)); hang(); }
    else if (send.startsWith('network:')) {
      process.stdout.write('Sending SMS 1/1....waiting for network answer..error ' + send.slice(8) + ', message reference=-1\\n');
      process.exit(255);
    }
    else if (send.startsWith('partial:')) {
      process.stdout.write(sent(1, 2, 42) + 'Sending SMS 2/2....waiting for network answer..error 500, message reference=-1\\n');
      failAs(send);
    } else failAs(send);
  },
  getallsms() {
    if (settings.getallsms) failAs(settings.getallsms);
    const messages = memory();
    const line = (name, value) => name.padEnd(20) + ' : ' + value + '\\n';
    let out = '';
    for (const m of messages) {
      out += 'Location ' + m.location + ', folder "Inbox", SIM memory, Inbox folder\\n' + 'SMS message\\n'
        + line('SMSC number', '"+33695000695"') + line('Sent', m.sent) + line('Coding', m.coding)
        + line('Remote number', '"' + m.number + '"') + line('Status', m.status)
        + (m.udh ? line('User Data Header', m.udh) : '') + '\\n' + m.text + '\\n\\n';
    }
    process.stdout.write(out + '\\n\\n' + messages.length + ' SMS parts in ' + messages.length + ' SMS sequences\\n');
    fs.writeFileSync(memoryFile, JSON.stringify(messages.map((m) => ({ ...m, status: m.status === 'UnRead' ? 'Read' : m.status }))));
  },
  deletesms() {
    const failures = fs.existsSync(config + '.deletefailures') ? Number(fs.readFileSync(config + '.deletefailures', 'utf8')) : 0;
    if (failures > 0) {
      fs.writeFileSync(config + '.deletefailures', String(failures - 1));
      fail(111, 'Error writing to the device.');
    }
    const messages = memory();
    if (rest[0] !== '0' || !messages.some((m) => String(m.location) === rest[1])) fail(124, 'Invalid location. Maybe too high?');
    fs.writeFileSync(memoryFile, JSON.stringify(messages.filter((m) => String(m.location) !== rest[1])));
  },
};
if (!commands[command]) fail(2, 'Bad parameter.');
setTimeout(() => commands[command](), Number(settings.sendDelayMs || 0));
`;

/** A message in the fake's SIM memory. */
interface StoredSms {
  location: number;
  number: string;
  sent: string;
  coding: string;
  status: string;
  text: string;
  udh?: string;
}

const GSM = 'Default GSM alphabet (no compression)';

/** How the adapter refuses any config_file outside GAMMU_CONFIG_DIR, whatever the reason. */
const REFUSED =
  'config_file must name a gammu configuration file in the folder the operator set (GAMMU_CONFIG_DIR).';

describe('GammuAdapter', () => {
  const originalPath = process.env.PATH;
  /** GAMMU_CONFIG_DIR: the configuration files of the tests, and the fake gammu under bin/. */
  let folder: string;
  let warnings: jest.SpyInstance;
  let errors: jest.SpyInstance;
  let adapter: GammuAdapter;
  let impatient: GammuAdapter;

  /** A gammu configuration file for the fake, with its settings. */
  const configFile = (settings: string): string => {
    const path = join(folder, `gammurc-${Math.random().toString(36).slice(2)}`);
    writeFileSync(path, settings);
    return path;
  };
  /** Each gammu call, as its locale and its arguments. */
  const calls = (config: string): string[] =>
    callArguments(config).map(({ env, args }) => `LC_ALL=${env.LC_ALL} ${args.join(' ')}`);
  const callArguments = (
    config: string,
  ): Array<{ env: Record<string, string>; args: string[] }> => {
    try {
      return readFileSync(`${config}.calls`, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { env: Record<string, string>; args: string[] });
    } catch {
      return [];
    }
  };
  const commands = (config: string): string[][] =>
    callArguments(config).map(({ args }) => args.slice(2));
  const memory = (config: string): StoredSms[] =>
    JSON.parse(readFileSync(`${config}.memory.json`, 'utf8')) as StoredSms[];
  const setMemory = (config: string, messages: StoredSms[]) =>
    writeFileSync(`${config}.memory.json`, JSON.stringify(messages));

  beforeEach(() => {
    folder = realpathSync(mkdtempSync(join(tmpdir(), 'smsgw-gammu-')));
    adapter = new GammuAdapter(
      adapterConfig({ PROVIDER_POLL_INTERVAL_MS: '20', GAMMU_CONFIG_DIR: folder }),
    );
    impatient = new GammuAdapter(
      adapterConfig({ PROVIDER_TIMEOUT_MS: '300', GAMMU_CONFIG_DIR: folder }),
    );
    const bin = join(folder, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'gammu'), FAKE_GAMMU);
    chmodSync(join(bin, 'gammu'), 0o755);
    process.env.PATH = `${bin}:${originalPath}`;
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  const { listen, stopAll } = trackListening((...args: Parameters<GammuAdapter['listen']>) =>
    adapter.listen(...args),
  );

  afterEach(async () => {
    await stopAll();
    process.env.PATH = originalPath;
    warnings.mockRestore();
    errors.mockRestore();
    rmSync(folder, { recursive: true, force: true });
  });

  describe('test', () => {
    it('accepts a modem that gammu identifies, running it without a shell in an English UTF-8 locale', async () => {
      const config = configFile('identify=ok\n');

      expect(await adapter.test({ config_file: config })).toBeNull();
      expect(calls(config)).toEqual([`LC_ALL=C.UTF-8 -c ${config} identify`]);
    });

    it('passes a config_file path with spaces as one argument', async () => {
      const config = join(folder, 'my gammurc');
      writeFileSync(config, 'identify=ok\n');

      expect(await adapter.test({ config_file: config })).toBeNull();
    });

    it('reports a modem gammu cannot identify, with what gammu said', async () => {
      const config = configFile('identify=fail\n');

      expect(await adapter.test({ config_file: config })).toBe(
        "gammu identify failed (Error opening device, it doesn't exist.): check config_file and the modem.",
      );
    });

    it('reads a config_file named without a folder in GAMMU_CONFIG_DIR', async () => {
      const config = configFile('identify=ok\n');

      expect(await adapter.test({ config_file: basename(config) })).toBeNull();
      expect(calls(config)).toEqual([`LC_ALL=C.UTF-8 -c ${config} identify`]);
    });

    it('follows a symbolic link that stays in GAMMU_CONFIG_DIR, giving gammu the real file', async () => {
      const config = configFile('identify=ok\n');
      symlinkSync(config, join(folder, 'modem'));

      expect(await adapter.test({ config_file: join(folder, 'modem') })).toBeNull();
      expect(calls(config)).toEqual([`LC_ALL=C.UTF-8 -c ${config} identify`]);
    });

    it('gives gammu PATH and its locale, nothing else of the server environment', async () => {
      const config = configFile('identify=ok\n');
      process.env.SMSGW_TEST_SECRET = 'hunter2';
      try {
        expect(await adapter.test({ config_file: config })).toBeNull();
      } finally {
        delete process.env.SMSGW_TEST_SECRET;
      }

      const [{ env }] = callArguments(config);
      expect(env).toEqual({ PATH: process.env.PATH, LC_ALL: 'C.UTF-8' });
      expect(JSON.stringify(env)).not.toContain('hunter2');
    });

    it('skips the PIN when the SIM needs none', async () => {
      const config = configFile('identify=ok\nsecurity=Nothing to enter.\npin=1234\n');

      expect(await adapter.test({ config_file: config, pin: '1234' })).toBeNull();
      expect(calls(config)).toEqual([
        `LC_ALL=C.UTF-8 -c ${config} identify`,
        `LC_ALL=C.UTF-8 -c ${config} getsecuritystatus`,
      ]);
    });

    it('enters the PIN when the SIM waits for it', async () => {
      const config = configFile('identify=ok\nsecurity=Waiting for PIN.\npin=1234\n');

      expect(await adapter.test({ config_file: config, pin: '1234' })).toBeNull();
      expect(calls(config)).toEqual([
        `LC_ALL=C.UTF-8 -c ${config} identify`,
        `LC_ALL=C.UTF-8 -c ${config} getsecuritystatus`,
        `LC_ALL=C.UTF-8 -c ${config} entersecuritycode PIN 1234`,
      ]);
    });

    it('reports a PIN the SIM refuses', async () => {
      const config = configFile('identify=ok\nsecurity=Waiting for PIN.\npin=1234\n');

      expect(await adapter.test({ config_file: config, pin: '9999' })).toBe(
        'gammu could not unlock the SIM with this PIN (Security error while entering the code.): check pin.',
      );
    });

    it.each(['12', '12a4', '123456789'])('refuses pin %p, not 4 to 8 digits', async (pin) => {
      expect(await adapter.test({ config_file: configFile('identify=ok\n'), pin })).toBe(
        'pin must be 4 to 8 digits.',
      );
    });

    it('gives up on a gammu that does not finish within the provider timeout', async () => {
      const config = configFile('identify=hang\n');

      expect(await impatient.test({ config_file: config })).toBe(
        'gammu identify did not finish within 300 ms: check that the modem is connected.',
      );
    });

    it('reports a server without gammu', async () => {
      process.env.PATH = join(folder, 'nowhere');

      expect(await adapter.test({ config_file: configFile('identify=ok\n') })).toBe(
        'The gammu command is not installed on the server (not found on its PATH).',
      );
    });

    it('names a missing config_file', async () => {
      expect(await adapter.test({ pin: '1234' })).toBe('config_file is required.');
    });
  });

  describe('config_file confinement to GAMMU_CONFIG_DIR', () => {
    /** A folder beside GAMMU_CONFIG_DIR holding a configuration gammu would accept. */
    let outside: string;
    let outsideConfig: string;

    beforeEach(() => {
      outside = realpathSync(mkdtempSync(join(tmpdir(), 'smsgw-gammu-outside-')));
      outsideConfig = join(outside, 'gammurc');
      writeFileSync(outsideConfig, 'identify=ok\nsend=ok\n');
    });
    afterEach(() => {
      rmSync(outside, { recursive: true, force: true });
    });

    const refusals: Array<[string, () => string]> = [
      ['an existing file outside the folder', () => outsideConfig],
      ['a missing file outside the folder', () => join(outside, 'missing')],
      ['a path that does not exist at all', () => '/nonexistent-smsgw/gammurc'],
      ['a way out of the folder with ..', () => join(folder, '..', basename(outside), 'gammurc')],
      ['a relative way out with ..', () => join('..', basename(outside), 'gammurc')],
      [
        'a symbolic link in the folder pointing out of it',
        () => {
          symlinkSync(outsideConfig, join(folder, 'escape'));
          return join(folder, 'escape');
        },
      ],
      [
        'a symbolic link to a folder outside',
        () => {
          symlinkSync(outside, join(folder, 'elsewhere'));
          return join(folder, 'elsewhere', 'gammurc');
        },
      ],
      ['a missing file in the folder', () => join(folder, 'missing')],
      ['the folder itself', () => folder],
      ['a folder in the folder', () => join(folder, 'bin')],
      ['a server file', () => '/etc/passwd'],
      ['a name with a NUL byte', () => `${join(folder, 'gammurc')}\u0000`],
    ];

    it.each(refusals)('refuses %s with the one message, without running gammu', async (_, path) => {
      const configFile = path();

      expect(await adapter.test({ config_file: configFile })).toBe(REFUSED);
      expect(await adapter.send({ config_file: configFile }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: REFUSED,
        cause: 'phone',
      });
      expect(await adapter.checkStatus({ config_file: configFile })).toBe('unavailable');
      expect(calls(outsideConfig)).toEqual([]);
    });

    it('refuses a file smsgw cannot read with the same message', async () => {
      const config = configFile('identify=ok\n');
      chmodSync(config, 0o000);
      // root reads any file: the refusal is then gammu's to make.
      const root = process.getuid?.() === 0;

      expect(await adapter.test({ config_file: config })).toBe(root ? null : REFUSED);
    });

    it('refuses every gammu phone, telling the operator what to set, when GAMMU_CONFIG_DIR is unset', async () => {
      const unconfined = new GammuAdapter(adapterConfig());
      const config = configFile('identify=ok\nsend=ok\n');
      const disabled =
        'gammu phones are disabled on this server until its operator sets GAMMU_CONFIG_DIR to the folder of their configuration files.';

      expect(await unconfined.test({ config_file: config })).toBe(disabled);
      expect(await unconfined.send({ config_file: config }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: disabled,
        cause: 'phone',
      });
      expect(await unconfined.checkStatus({ config_file: config })).toBe('unavailable');
      const stop = unconfined.listen(
        { id: 7, id_user: 1, data: { config_file: config } },
        new RecordingSink(),
      );
      await stop();
      expect(warnings).toHaveBeenCalledWith(`Gammu reception for phone 7 not started: ${disabled}`);
      expect(calls(config)).toEqual([]);
    });
  });

  describe('checkStatus', () => {
    it('reports a modem gammu identifies as available', async () => {
      expect(await adapter.checkStatus({ config_file: configFile('identify=ok\n') })).toBe(
        'available',
      );
    });

    it('reports a modem gammu cannot identify as unavailable', async () => {
      expect(await adapter.checkStatus({ config_file: configFile('identify=fail\n') })).toBe(
        'unavailable',
      );
    });

    it('reports a gammu that does not finish within the provider timeout as unavailable', async () => {
      expect(await impatient.checkStatus({ config_file: configFile('identify=hang\n') })).toBe(
        'unavailable',
      );
    });

    it('reports a missing config_file as unavailable', async () => {
      expect(await adapter.checkStatus({ config_file: join(folder, 'missing') })).toBe(
        'unavailable',
      );
    });
  });

  describe('send', () => {
    it('sends the text as one UTF-8 argument with -autolen, in an English UTF-8 locale', async () => {
      const config = configFile('send=ok\n');

      const result = await adapter.send(
        { config_file: config },
        outgoingSms({ text: 'Hello there' }),
      );

      expect(result).toEqual({ outcome: 'sent', uid: '42' });
      expect(callArguments(config)).toEqual([
        {
          env: { PATH: process.env.PATH, LC_ALL: 'C.UTF-8' },
          args: [
            '-c',
            config,
            'sendsms',
            'TEXT',
            '+33687654321',
            '-textutf8',
            'Hello there',
            '-autolen',
            '11',
          ],
        },
      ]);
    });

    it('passes a text with quotes, newlines and shell syntax untouched, asking Unicode for it', async () => {
      const config = configFile('send=ok\n');
      const text = 'Ça "marche" $(touch pwned); `id`\n* ok ✓';

      await adapter.send({ config_file: config }, outgoingSms({ text }));

      expect(commands(config)).toEqual([
        [
          'sendsms',
          'TEXT',
          '+33687654321',
          '-textutf8',
          text,
          '-autolen',
          String(text.length),
          '-unicode',
        ],
      ]);
    });

    it('sends a flash SMS with -flash, and says it can', async () => {
      const config = configFile('send=ok\n');

      await adapter.send({ config_file: config }, outgoingSms({ flash: true }));

      expect(commands(config)[0].at(-1)).toBe('-flash');
      expect(adapter.capabilities).toEqual({ flash: true, mms: false });
    });

    it('takes the first reference of a message sent in several parts as its uid', async () => {
      const config = configFile('send=two-parts\n');

      expect(await adapter.send({ config_file: config }, outgoingSms())).toEqual({
        outcome: 'sent',
        uid: '42',
      });
    });

    it('enters the PIN before sending when the SIM waits for it', async () => {
      const config = configFile('send=ok\nsecurity=Waiting for PIN.\npin=1234\n');

      expect(
        (await adapter.send({ config_file: config, pin: '1234' }, outgoingSms())).outcome,
      ).toBe('sent');
      expect(commands(config).map((args) => args.slice(0, 3).join(' '))).toEqual([
        'getsecuritystatus',
        'entersecuritycode PIN 1234',
        'sendsms TEXT +33687654321',
      ]);
    });

    it('sends without entering the PIN when the SIM needs none', async () => {
      const config = configFile('send=ok\nsecurity=Nothing to enter.\npin=1234\n');

      await adapter.send({ config_file: config, pin: '1234' }, outgoingSms());

      expect(commands(config).map(([command]) => command)).toEqual([
        'getsecuritystatus',
        'sendsms',
      ]);
    });

    it('fails for good, sending nothing, when the SIM refuses the PIN', async () => {
      const config = configFile('send=ok\nsecurity=Waiting for PIN.\npin=1234\n');

      expect(await adapter.send({ config_file: config, pin: '9999' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason:
          'gammu could not unlock the SIM with this PIN (Security error while entering the code.): check pin.',
        cause: 'phone',
      });
      expect(commands(config).map(([command]) => command)).not.toContain('sendsms');
    });

    it.each([
      [102, 'Error opening device. Unknown, busy or no permissions.'],
      [103, 'Error opening device, it is locked.'],
      [104, "Error opening device, it doesn't exist."],
      [105, 'Error opening device, it is already opened by other application.'],
      [114, 'No response in specified timeout. Probably phone not connected.'],
      [166, 'Command rejected because device was busy. Wait and restart.'],
    ])(
      'tries again later when gammu exits with %p, a modem it cannot use now',
      async (code, error) => {
        const config = configFile(`send=exit:${code}:${error}\n`);

        expect(await adapter.send({ config_file: config }, outgoingSms())).toEqual({
          outcome: 'transient',
          reason: `gammu sendsms failed (${error}): check config_file and the modem.`,
        });
      },
    );

    it.each([
      [123, 'Security error. Maybe no PIN?'],
      [127, 'Unknown error.'],
      [131, 'No SMSC number given. Provide it manually or use the one configured in phone.'],
      [149, 'Can not access SIM card.'],
    ])('fails for good when gammu exits with %p', async (code, error) => {
      const config = configFile(`send=exit:${code}:${error}\n`);

      expect(await adapter.send({ config_file: config }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: `gammu sendsms failed (${error}): check config_file and the modem.`,
        cause: 'phone',
      });
    });

    // The network's answers to a part, and whose they are (docs/adapters.md#refusals).
    it.each<[number, 'recipient' | 'phone']>([
      [1, 'recipient'],
      [21, 'recipient'],
      [27, 'recipient'],
      [96, 'recipient'],
      [8, 'phone'],
      [10, 'phone'],
      [30, 'phone'],
      [50, 'phone'],
      [38, 'phone'],
      [310, 'phone'],
      [330, 'phone'],
      [331, 'phone'],
    ])('classifies the network refusing with error %i as the %s refusing', async (error, cause) => {
      const config = configFile(`send=network:${error}\n`);

      expect(await adapter.send({ config_file: config }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: `The network refused the message (error ${error}, as gammu sendsms reports it): check the destination number and the SIM's subscription.`,
        cause,
      });
    });

    it('fails for good once a part went out, even on an error worth retrying, not to repeat it', async () => {
      const config = configFile(
        'send=partial:114:No response in specified timeout. Probably phone not connected.\n',
      );

      expect(await adapter.send({ config_file: config }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason:
          'gammu sent part of the message, then failed (No response in specified timeout. Probably phone not connected.): check the modem.',
        cause: 'recipient',
      });
    });

    it('tries again later when gammu does not finish within the provider timeout', async () => {
      const config = configFile('send=hang\n');

      expect(await impatient.send({ config_file: config }, outgoingSms())).toEqual({
        outcome: 'transient',
        reason: 'gammu sendsms did not finish within 300 ms: check that the modem is connected.',
      });
    });

    it('fails for good when gammu hangs after a part went out', async () => {
      const config = configFile('send=hang-after-part\n');

      expect(await impatient.send({ config_file: config }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason:
          'gammu sent part of the message, then failed (it did not finish in time): check the modem.',
        cause: 'recipient',
      });
    });

    it('fails for good when gammu succeeds without a message reference', async () => {
      const config = configFile('send=noref\n');

      expect(await adapter.send({ config_file: config }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason:
          'gammu sendsms ended without a message reference, so smsgw cannot tell whether the modem sent it: check the modem.',
        cause: 'recipient',
      });
    });

    it('fails for good on a server without gammu', async () => {
      const config = configFile('send=ok\n');
      process.env.PATH = join(folder, 'nowhere');

      expect(await adapter.send({ config_file: config }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: 'The gammu command is not installed on the server (not found on its PATH).',
        cause: 'phone',
      });
    });

    it('fails for good on missing or invalid data without running gammu', async () => {
      const config = configFile('send=ok\n');
      const missing = join(folder, 'missing');

      expect(await adapter.send({ config_file: missing }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: REFUSED,
        cause: 'phone',
      });
      expect(await adapter.send({ config_file: config, pin: '12' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: 'pin must be 4 to 8 digits.',
        cause: 'phone',
      });
      expect(calls(config)).toEqual([]);
    });

    it('runs one gammu at a time on a modem, as gammu refuses a second one', async () => {
      const config = configFile('send=ok\nsendDelayMs=150\nexclusive=1\n');

      const results = await Promise.all(
        ['+33611111111', '+33622222222', '+33633333333'].map((destination) =>
          adapter.send({ config_file: config }, outgoingSms({ destination })),
        ),
      );

      expect(results.map(({ outcome }) => outcome)).toEqual(['sent', 'sent', 'sent']);
    });
  });

  describe('listen', () => {
    const PHONE_ID = 7;
    const phone = (config: string, pin?: string): ListenedPhone => ({
      id: PHONE_ID,
      id_user: 1,
      data: pin ? { config_file: config, pin } : { config_file: config },
    });
    const message = (location: number, text: string, overrides: Partial<StoredSms> = {}) => ({
      location,
      number: '+33611111111',
      sent: 'Mon Jan 15 10:23:45 2024 +0100',
      coding: GSM,
      status: 'UnRead',
      text,
      ...overrides,
    });
    const deletions = (config: string) =>
      commands(config).filter(([command]) => command === 'deletesms');
    /** Resolves once `condition` holds, rejects if it still does not after 10 s. */
    const until = async (condition: () => boolean) => {
      const giveUp = Date.now() + 10_000;
      while (!condition()) {
        if (Date.now() > giveUp) {
          throw new Error('The condition never held.');
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };

    it('reports received messages, a concatenated one joined, then deletes them from the modem', async () => {
      const config = configFile('\n');
      setMemory(config, [
        message(1, 'Bonjour ça va ?', {
          coding: 'Unicode (no compression)',
          number: '+33622222222',
        }),
        message(2, 'first half, ', {
          udh: 'Concatenated (linked) message, ID (8 bit) 9, part 1 of 2',
        }),
        message(3, 'second half', {
          udh: 'Concatenated (linked) message, ID (8 bit) 9, part 2 of 2',
          sent: 'Mon Jan 15 10:23:47 2024 +0100',
        }),
      ]);
      const sink = new RecordingSink();

      const stop = listen(phone(config), sink);
      await sink.calls(2);
      await stop();

      expect(sink.messages).toEqual([
        { origin: '+33622222222', text: 'Bonjour ça va ?', at: '2024-01-15 09:23:45' },
        { origin: '+33611111111', text: 'first half, second half', at: '2024-01-15 09:23:45' },
      ]);
      expect(deletions(config)).toEqual([
        ['deletesms', '0', '1'],
        ['deletesms', '0', '2'],
        ['deletesms', '0', '3'],
      ]);
      expect(memory(config)).toEqual([]);
      expect(calls(config)[0]).toBe(`LC_ALL=C.UTF-8 -c ${config} getallsms`);
    });

    it('leaves sent messages and the parts of an incomplete message on the modem', async () => {
      const config = configFile('\n');
      const kept = [
        message(1, 'sent by the modem', { status: 'Sent' }),
        message(2, 'one of two', {
          udh: 'Concatenated (linked) message, ID (8 bit) 3, part 1 of 2',
        }),
      ];
      setMemory(config, [...kept, message(3, 'hello')]);
      const sink = new RecordingSink();

      const stop = listen(phone(config), sink);
      await sink.calls(1);
      await stop();

      expect(sink.messages.map(({ text }) => text)).toEqual(['hello']);
      expect(memory(config).map(({ location }) => location)).toEqual([1, 2]);
    });

    /** A modem holding one message, listened to until the sink, holding its store, has it. */
    const listenHoldingOneMessage = async () => {
      const config = configFile('\n');
      setMemory(config, [message(1, 'hello')]);
      const sink = new RecordingSink();
      sink.hold();
      const stop = listen(phone(config), sink);
      await sink.calls(1);
      return { config, sink, stop };
    };

    it('deletes a message from the modem only once the sink has stored it', async () => {
      const { config, sink, stop } = await listenHoldingOneMessage();
      expect(deletions(config)).toEqual([]);

      sink.release();
      await stop();
      expect(deletions(config)).toEqual([['deletesms', '0', '1']]);
    });

    it('reports again next round a message the sink failed to store, though listing marked it read', async () => {
      const config = configFile('\n');
      setMemory(config, [message(1, 'hello')]);
      const sink = new RecordingSink();
      sink.failures = 1;

      const stop = listen(phone(config), sink);
      await sink.calls(2);
      await stop();

      expect(sink.messages.map(({ text }) => text)).toEqual(['hello', 'hello']);
      expect(deletions(config)).toEqual([['deletesms', '0', '1']]);
      expect(errors).toHaveBeenCalledWith(
        expect.stringContaining(
          'storing the message at 1 failed, it stays on the modem for the next round',
        ),
      );
    });

    it('deletes again a stored message whose deletion failed, without reporting it twice', async () => {
      const config = configFile('\n');
      setMemory(config, [message(1, 'hello')]);
      writeFileSync(`${config}.deletefailures`, '1');
      const sink = new RecordingSink();

      const stop = listen(phone(config), sink);
      await until(() => deletions(config).length === 2);
      await stop();

      expect(sink.messages).toHaveLength(1);
      expect(memory(config)).toEqual([]);
      expect(warnings).toHaveBeenCalledWith(
        'Gammu reception for phone 7: gammu deletesms failed (Error writing to the device.): check config_file and the modem. The stored message at 1 is deleted next round.',
      );
    });

    it('lets the round in progress store and delete its message before stopping', async () => {
      const { config, sink, stop } = await listenHoldingOneMessage();

      await expectStopToAwaitHeldRound(stop, sink);
      expect(memory(config)).toEqual([]);
    });

    it('enters the PIN before reading when the SIM waits for it', async () => {
      const config = configFile('security=Waiting for PIN.\npin=1234\n');
      setMemory(config, [message(1, 'hello')]);
      const sink = new RecordingSink();

      const stop = listen(phone(config, '1234'), sink);
      await sink.calls(1);
      await stop();

      expect(
        commands(config)
          .slice(0, 3)
          .map(([command]) => command),
      ).toEqual(['getsecuritystatus', 'entersecuritycode', 'getallsms']);
    });

    it('logs a modem gammu cannot read, and reports nothing', async () => {
      const config = configFile("getallsms=exit:104:Error opening device, it doesn't exist.\n");
      let warned!: () => void;
      const warning = new Promise<void>((resolve) => (warned = resolve));
      warnings.mockImplementation(() => warned());
      const sink = new RecordingSink();

      const stop = listen(phone(config), sink);
      await warning;
      await stop();

      expect(warnings).toHaveBeenCalledWith(
        "Gammu reception for phone 7: gammu getallsms failed (Error opening device, it doesn't exist.): check config_file and the modem.",
      );
      expect(sink.messages).toEqual([]);
    });

    it('does not start without a config_file, saying why', async () => {
      const stop = listen({ id: PHONE_ID, id_user: 1, data: {} }, new RecordingSink());
      await stop();

      expect(warnings).toHaveBeenCalledWith(
        'Gammu reception for phone 7 not started: config_file is required.',
      );
    });
  });
});
