import { Logger } from '@nestjs/common';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adapterConfig } from '../../../test/support/adapters.factories';
import { GammuAdapter } from './gammu.adapter';

/*
 * A fake `gammu` first on the PATH. It behaves as the `key=value` lines of the configuration
 * file it is given say (identify=ok|fail|hang, security=<what getsecuritystatus prints>,
 * pin=<the SIM's PIN>) and appends each call's arguments and locale to <config>.calls.
 */
const FAKE_GAMMU = `#!/bin/sh
config="$2"
setting() { sed -n "s/^$1=//p" "$config"; }
echo "LC_ALL=$LC_ALL $*" >> "$config.calls"
case "$3" in
  identify)
    case "$(setting identify)" in
      ok) echo "Manufacturer         : Fake"; exit 0 ;;
      hang) exec sleep 30 ;;
      *) echo "Error opening device, it doesn't exist." >&2; exit 2 ;;
    esac ;;
  getsecuritystatus) setting security; exit 0 ;;
  entersecuritycode)
    if [ "$4" = PIN ] && [ "$5" = "$(setting pin)" ]; then exit 0; fi
    echo "Security error while entering the code." >&2; exit 1 ;;
esac
exit 3
`;

describe('GammuAdapter', () => {
  const originalPath = process.env.PATH;
  let folder: string;
  let warnings: jest.SpyInstance;
  const adapter = new GammuAdapter(adapterConfig());
  const impatient = new GammuAdapter(adapterConfig({ PROVIDER_TIMEOUT_MS: '300' }));

  /** A gammu configuration file for the fake, with its settings. */
  const configFile = (settings: string): string => {
    const path = join(folder, `gammurc-${Math.random().toString(36).slice(2)}`);
    writeFileSync(path, settings);
    return path;
  };
  const calls = (config: string): string[] =>
    readFileSync(`${config}.calls`, 'utf8').trim().split('\n');

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-gammu-'));
    const bin = join(folder, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'gammu'), FAKE_GAMMU);
    chmodSync(join(bin, 'gammu'), 0o755);
    process.env.PATH = `${bin}:${originalPath}`;
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    process.env.PATH = originalPath;
    warnings.mockRestore();
    rmSync(folder, { recursive: true, force: true });
  });

  describe('test', () => {
    it('accepts a modem that gammu identifies, running it without a shell in the C locale', async () => {
      const config = configFile('identify=ok\n');

      expect(await adapter.test({ config_file: config })).toBeNull();
      expect(calls(config)).toEqual([`LC_ALL=C -c ${config} identify`]);
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

    it('reports a missing config_file without running gammu', async () => {
      const config = join(folder, 'missing');

      expect(await adapter.test({ config_file: config })).toBe(
        `config_file ${config} does not exist on the server.`,
      );
    });

    it('reports a config_file that is a directory', async () => {
      expect(await adapter.test({ config_file: folder })).toBe(
        `config_file ${folder} is not a file.`,
      );
    });

    it('skips the PIN when the SIM needs none', async () => {
      const config = configFile('identify=ok\nsecurity=Nothing to enter.\npin=1234\n');

      expect(await adapter.test({ config_file: config, pin: '1234' })).toBeNull();
      expect(calls(config)).toEqual([
        `LC_ALL=C -c ${config} identify`,
        `LC_ALL=C -c ${config} getsecuritystatus`,
      ]);
    });

    it('enters the PIN when the SIM waits for it', async () => {
      const config = configFile('identify=ok\nsecurity=Waiting for PIN.\npin=1234\n');

      expect(await adapter.test({ config_file: config, pin: '1234' })).toBeNull();
      expect(calls(config)).toEqual([
        `LC_ALL=C -c ${config} identify`,
        `LC_ALL=C -c ${config} getsecuritystatus`,
        `LC_ALL=C -c ${config} entersecuritycode PIN 1234`,
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
});
