import { Injectable, Logger } from '@nestjs/common';
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { AppConfig } from '../../config/configuration';
import { PhoneStatus } from '../../phones/entities/phone.entity';
import { Adapter, AdapterCapabilities, AdapterData, field, missingRequiredField } from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import { formatDuration } from '../provider-http';

/** How one gammu command ended. */
type GammuRun =
  | { kind: 'exited'; code: number | null; output: string }
  | { kind: 'timeout' }
  | { kind: 'not_started'; code: string | undefined };

/** gammu's answers are a few lines; more is not kept. */
const MAX_OUTPUT_CHARS = 64 * 1024;

/** A GSM modem driven by the `gammu` command found on the PATH. */
@Injectable()
export class GammuAdapter implements Adapter {
  private readonly logger = new Logger(GammuAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'gammu',
    alias: 'adapters\\GammuAdapter',
    name: 'Gammu',
    description: 'Sends through a GSM modem with the gammu command.',
    fields: [
      field('config_file', 'Path of the gammu configuration file.', true),
      field('pin', 'SIM PIN code.', false),
    ],
    hideData: false,
  };
  readonly capabilities: AdapterCapabilities = { flash: false, mms: false };

  constructor(private readonly config: AppConfig) {}

  async test(data: AdapterData): Promise<string | null> {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return missing;
    }
    if (data.pin && !/^\d{4,8}$/.test(data.pin)) {
      return 'pin must be 4 to 8 digits.';
    }
    const fileProblem = await readableFile(data.config_file);
    if (fileProblem) {
      return fileProblem;
    }
    const deadline = Date.now() + this.config.providers.timeoutMs;
    const identify = await this.gammu(data, ['identify'], deadline);
    if (identify.kind !== 'exited' || identify.code !== 0) {
      return this.failure('identify', identify);
    }
    if (!data.pin) {
      return null;
    }
    const security = await this.gammu(data, ['getsecuritystatus'], deadline);
    if (security.kind !== 'exited' || security.code !== 0) {
      return this.failure('getsecuritystatus', security);
    }
    // "Nothing to enter." when the SIM is already unlocked; entering the PIN again would fail.
    if (/nothing/i.test(security.output)) {
      return null;
    }
    const unlock = await this.gammu(data, ['entersecuritycode', 'PIN', data.pin], deadline);
    if (unlock.kind === 'exited' && unlock.code !== 0) {
      return `gammu could not unlock the SIM with this PIN (${said(unlock)}): check pin.`;
    }
    return unlock.kind === 'exited' ? null : this.failure('entersecuritycode', unlock);
  }

  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const problem =
      missingRequiredField(this.descriptor, data) ??
      (await readableFile(data.config_file)) ??
      (await this.identifies(data));
    if (problem) {
      this.logger.warn(`Gammu status check: ${problem}`);
      return 'unavailable';
    }
    return 'available';
  }

  private async identifies(data: AdapterData): Promise<string | null> {
    const deadline = Date.now() + this.config.providers.timeoutMs;
    const identify = await this.gammu(data, ['identify'], deadline);
    return identify.kind === 'exited' && identify.code === 0
      ? null
      : this.failure('identify', identify);
  }

  private failure(command: string, run: GammuRun): string {
    switch (run.kind) {
      case 'timeout':
        return `gammu ${command} did not finish within ${formatDuration(this.config.providers.timeoutMs)}: check that the modem is connected.`;
      case 'not_started':
        return run.code === 'ENOENT'
          ? 'The gammu command is not installed on the server (not found on its PATH).'
          : `The gammu command could not be started (${run.code ?? 'unknown error'}).`;
      case 'exited':
        return `gammu ${command} failed (${said(run)}): check config_file and the modem.`;
    }
  }

  /**
   * Runs gammu without a shell, its arguments as a list, in the C locale so its answers are
   * English, under the PATH of the moment. The deadline holds even when a child of gammu keeps
   * its output open.
   */
  private gammu(data: AdapterData, command: string[], deadline: number): Promise<GammuRun> {
    return new Promise((resolve) => {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        resolve({ kind: 'timeout' });
        return;
      }
      let output = '';
      let settled = false;
      const settle = (run: GammuRun) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve(run);
        }
      };
      const child = spawn('gammu', ['-c', data.config_file, ...command], {
        env: { ...process.env, LC_ALL: 'C' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const timer = setTimeout(() => {
        // SIGTERM lets gammu release the modem's lock file; the check does not wait for it.
        child.kill('SIGTERM');
        settle({ kind: 'timeout' });
      }, remaining);
      const collect = (chunk: Buffer) => {
        output = (output + chunk.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      child.on('error', (error: NodeJS.ErrnoException) =>
        settle({ kind: 'not_started', code: error.code }),
      );
      child.on('close', (code) => settle({ kind: 'exited', code, output }));
    });
  }
}

/** Null when `path` is a file smsgw can read, else why not. */
async function readableFile(path: string): Promise<string | null> {
  try {
    const stats = await stat(path);
    if (!stats.isFile()) {
      return `config_file ${path} is not a file.`;
    }
    await access(path, constants.R_OK);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? `config_file ${path} does not exist on the server.`
      : `config_file ${path} cannot be read by smsgw.`;
  }
}

/** What a failed gammu said: the last line of its output, where it names the problem. */
function said(run: Extract<GammuRun, { kind: 'exited' }>): string {
  const last = run.output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .pop();
  if (last) {
    return last.slice(0, 200);
  }
  return run.code === null ? 'stopped by a signal' : `exit code ${run.code}`;
}
