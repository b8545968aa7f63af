import { Injectable, Logger } from '@nestjs/common';
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AppConfig } from '../../config/configuration';
import { measureSms } from '../../dispatch/text/gsm';
import { PhoneStatus } from '../../phones/entities/phone.entity';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  InboundSink,
  ListenedPhone,
  OutgoingSms,
  SendResult,
  field,
  missingRequiredField,
} from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import { pollEvery } from '../poller';
import { formatDuration } from '../provider-http';
import { parseGetAllSms, receivedMessages } from './gammu-sms';

/** How one gammu command ended. */
type GammuRun =
  | { kind: 'exited'; code: number | null; stdout: string; stderr: string }
  | { kind: 'timeout'; stdout: string }
  | { kind: 'not_started'; code: string | undefined };

/** Why a gammu command failed, in words for the user, and whether trying later may work. */
interface GammuFailure {
  reason: string;
  transient: boolean;
}

/** gammu's answers are a few lines; more is not kept. */
const MAX_OUTPUT_CHARS = 64 * 1024;

/**
 * Exit codes gammu documents (GSM_Error + 100) for a modem it cannot use right now: device
 * unknown or busy (102), locked (103), missing (104), opened by another program (105), not
 * connected (108, 133), no answer in time (114), in a menu (132), busy (166). Trying later
 * may work; any other failure is one a retry will not fix.
 */
const MODEM_UNAVAILABLE = new Set([102, 103, 104, 105, 108, 114, 132, 133, 166]);

/** A part of a message the network accepted, as `gammu sendsms` prints it. */
const SENT_PART = /\.\.OK, message reference=(\d+)/g;

/**
 * A GSM modem driven by the `gammu` command found on the PATH. Delivery reports would come
 * back through the modem as status-report SMS; reading them is not supported, so messages
 * sent through gammu stay `unknown`.
 */
@Injectable()
export class GammuAdapter implements Adapter {
  private readonly logger = new Logger(GammuAdapter.name);
  /** Per configuration file, the end of the last gammu command queued on that modem. */
  private readonly modems = new Map<string, Promise<void>>();

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
  /** `gammu sendsms TEXT … -flash` sends a class 0 SMS. */
  readonly capabilities: AdapterCapabilities = { flash: true, mms: false };

  constructor(private readonly config: AppConfig) {}

  async test(data: AdapterData): Promise<string | null> {
    const problem =
      missingRequiredField(this.descriptor, data) ??
      pinProblem(data) ??
      (await readableFile(data.config_file));
    if (problem) {
      return problem;
    }
    const deadline = this.deadline();
    const identify = await this.gammu(data, ['identify'], deadline);
    if (identify.kind !== 'exited' || identify.code !== 0) {
      return this.failure('identify', identify).reason;
    }
    return (await this.unlock(data, deadline))?.reason ?? null;
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

  /**
   * `gammu sendsms TEXT`, the text as UTF-8 whatever the locale, `-autolen` so that gammu
   * splits a long text into linked parts and picks its coding, and `-unicode` for a text
   * outside the GSM alphabet, which gammu would otherwise transliterate.
   */
  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const problem =
      missingRequiredField(this.descriptor, data) ??
      pinProblem(data) ??
      (await readableFile(data.config_file));
    if (problem) {
      return { outcome: 'permanent', reason: problem };
    }
    const deadline = this.deadline();
    const locked = await this.unlock(data, deadline);
    if (locked) {
      return outcome(locked);
    }
    const unicode = measureSms(sms.text).encoding !== 'GSM-7';
    const run = await this.gammu(
      data,
      [
        'sendsms',
        'TEXT',
        sms.destination,
        '-textutf8',
        sms.text,
        '-autolen',
        String(sms.text.length),
        ...(unicode ? ['-unicode'] : []),
        ...(sms.flash ? ['-flash'] : []),
      ],
      deadline,
    );
    const references = run.kind === 'not_started' ? [] : sentParts(run.stdout);
    if (run.kind === 'exited' && run.code === 0) {
      return references.length > 0
        ? { outcome: 'sent', uid: references[0] }
        : {
            outcome: 'permanent',
            reason:
              'gammu sendsms ended without a message reference, so smsgw cannot tell whether the modem sent it: check the modem.',
          };
    }
    if (references.length > 0) {
      // The network took some parts: sending again would repeat them.
      return {
        outcome: 'permanent',
        reason: `gammu sent part of the message, then failed (${run.kind === 'exited' ? said(run) : 'it did not finish in time'}): check the modem.`,
      };
    }
    return outcome(this.failure('sendsms', run));
  }

  /**
   * The modem cannot push what it receives to smsgw, so its memory is read with
   * `gammu getallsms` every PROVIDER_POLL_INTERVAL_MS. Each received message is reported,
   * then deleted from the modem with `gammu deletesms 0 <location>` (folder 0: gammu's flat
   * numbering of all folders, which getallsms prints) once the sink has stored it. Both read
   * and unread ones are taken: listing marks messages read on most modems, so a message whose
   * storing failed is read the next round. A stored message whose deletion failed is
   * remembered, so that the next round deletes it without reporting it twice.
   */
  listen(phone: ListenedPhone, sink: InboundSink): () => Promise<void> {
    const problem = missingRequiredField(this.descriptor, phone.data) ?? pinProblem(phone.data);
    if (problem) {
      this.logger.warn(`Gammu reception for phone ${phone.id} not started: ${problem}`);
      return () => Promise.resolve();
    }
    const stored = new Set<string>();
    return pollEvery(
      this.config.providers.pollIntervalMs,
      (active) => this.receive(phone, sink, stored, active),
      this.logger,
    );
  }

  private async receive(
    phone: ListenedPhone,
    sink: InboundSink,
    stored: Set<string>,
    active: () => boolean,
  ): Promise<void> {
    const { data } = phone;
    const warn = (problem: string) =>
      this.logger.warn(`Gammu reception for phone ${phone.id}: ${problem}`);
    const fileProblem = await readableFile(data.config_file);
    if (fileProblem) {
      warn(fileProblem);
      return;
    }
    const deadline = this.deadline();
    const locked = await this.unlock(data, deadline);
    if (locked) {
      warn(locked.reason);
      return;
    }
    const listing = await this.gammu(data, ['getallsms'], deadline);
    if (listing.kind !== 'exited' || listing.code !== 0) {
      warn(this.failure('getallsms', listing).reason);
      return;
    }
    const messages = receivedMessages(parseGetAllSms(listing.stdout)).map((message) => ({
      ...message,
      key: [message.locations.join(','), message.sms.origin, message.sms.text].join('\u0000'),
    }));
    for (const key of stored) {
      if (!messages.some((message) => message.key === key)) {
        stored.delete(key);
      }
    }
    for (const { locations, sms, key } of messages) {
      if (!active()) {
        return;
      }
      if (!stored.has(key)) {
        try {
          await sink.received(phone, sms);
        } catch (error) {
          this.logger.error(
            `Gammu reception for phone ${phone.id}: storing the message at ${locations.join(', ')} failed, it stays on the modem for the next round: ${
              error instanceof Error ? error.message : String(error)
            }`,
          );
          return;
        }
        stored.add(key);
      }
      if (await this.deleteAll(data, locations, warn)) {
        stored.delete(key);
      }
    }
  }

  /** Deletes the locations one by one; false, having said why, when one is not deleted. */
  private async deleteAll(
    data: AdapterData,
    locations: number[],
    warn: (problem: string) => void,
  ): Promise<boolean> {
    for (const location of locations) {
      const run = await this.gammu(data, ['deletesms', '0', String(location)], this.deadline());
      if (run.kind !== 'exited' || run.code !== 0) {
        warn(
          `${this.failure('deletesms', run).reason} The stored message at ${location} is deleted next round.`,
        );
        return false;
      }
    }
    return true;
  }

  /**
   * Enters the PIN when the SIM waits for it; null when it is unlocked (or no PIN is set),
   * else why not. A SIM already unlocked answers "Nothing to enter." and entering the PIN
   * again would fail.
   */
  private async unlock(data: AdapterData, deadline: number): Promise<GammuFailure | null> {
    if (!data.pin) {
      return null;
    }
    const security = await this.gammu(data, ['getsecuritystatus'], deadline);
    if (security.kind !== 'exited' || security.code !== 0) {
      return this.failure('getsecuritystatus', security);
    }
    if (/nothing/i.test(security.stdout)) {
      return null;
    }
    const unlock = await this.gammu(data, ['entersecuritycode', 'PIN', data.pin], deadline);
    if (unlock.kind === 'exited' && unlock.code !== 0) {
      return {
        reason: `gammu could not unlock the SIM with this PIN (${said(unlock)}): check pin.`,
        transient: false,
      };
    }
    return unlock.kind === 'exited' ? null : this.failure('entersecuritycode', unlock);
  }

  private async identifies(data: AdapterData): Promise<string | null> {
    const identify = await this.gammu(data, ['identify'], this.deadline());
    return identify.kind === 'exited' && identify.code === 0
      ? null
      : this.failure('identify', identify).reason;
  }

  private deadline(): number {
    return Date.now() + this.config.providers.timeoutMs;
  }

  private failure(command: string, run: GammuRun): GammuFailure {
    switch (run.kind) {
      case 'timeout':
        return {
          reason: `gammu ${command} did not finish within ${formatDuration(this.config.providers.timeoutMs)}: check that the modem is connected.`,
          transient: true,
        };
      case 'not_started':
        return {
          reason:
            run.code === 'ENOENT'
              ? 'The gammu command is not installed on the server (not found on its PATH).'
              : `The gammu command could not be started (${run.code ?? 'unknown error'}).`,
          transient: false,
        };
      case 'exited':
        return {
          reason: `gammu ${command} failed (${said(run)}): check config_file and the modem.`,
          transient: run.code !== null && MODEM_UNAVAILABLE.has(run.code),
        };
    }
  }

  /**
   * Runs gammu without a shell, its arguments as a list, under the PATH of the moment, in the
   * C locale for English answers but with UTF-8 for texts (gammu prints them in the locale's
   * charset). Commands on one modem wait for each other: gammu would refuse a second one
   * while the first holds the device. The deadline counts that wait, and holds even when a
   * child of gammu keeps its output open.
   */
  private gammu(data: AdapterData, command: string[], deadline: number): Promise<GammuRun> {
    const modem = resolve(data.config_file);
    const previous = this.modems.get(modem) ?? Promise.resolve();
    const run = previous.then(() => this.spawnGammu(data.config_file, command, deadline));
    const done = run.then(() => undefined);
    this.modems.set(modem, done);
    void done.then(() => {
      if (this.modems.get(modem) === done) {
        this.modems.delete(modem);
      }
    });
    return run;
  }

  private spawnGammu(configFile: string, command: string[], deadline: number): Promise<GammuRun> {
    return new Promise((settled) => {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        settled({ kind: 'timeout', stdout: '' });
        return;
      }
      let stdout = '';
      let stderr = '';
      let done = false;
      const settle = (run: GammuRun) => {
        if (!done) {
          done = true;
          clearTimeout(timer);
          settled(run);
        }
      };
      const child = spawn('gammu', ['-c', configFile, ...command], {
        env: { ...process.env, LC_ALL: 'C.UTF-8' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const timer = setTimeout(() => {
        // SIGTERM lets gammu release the modem's lock file; smsgw does not wait for it.
        child.kill('SIGTERM');
        settle({ kind: 'timeout', stdout });
      }, remaining);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout = (stdout + chunk.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
      });
      child.on('error', (error: NodeJS.ErrnoException) =>
        settle({ kind: 'not_started', code: error.code }),
      );
      child.on('close', (code) => settle({ kind: 'exited', code, stdout, stderr }));
    });
  }
}

/** A SendResult for a failure. */
function outcome({ reason, transient }: GammuFailure): SendResult {
  return { outcome: transient ? 'transient' : 'permanent', reason };
}

/** Why `pin` cannot be a SIM PIN, or null when it can (or is empty). */
function pinProblem(data: AdapterData): string | null {
  return data.pin && !/^\d{4,8}$/.test(data.pin) ? 'pin must be 4 to 8 digits.' : null;
}

/** The message references of the parts the network accepted. */
function sentParts(stdout: string): string[] {
  return [...stdout.matchAll(SENT_PART)].map((match) => match[1]);
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

/**
 * What a failed gammu said: the last line of its errors, else of its output, where it names
 * the problem (its first lines are progress, such as "If you want break, press Ctrl+C...").
 */
function said(run: Extract<GammuRun, { kind: 'exited' }>): string {
  const last = (text: string) =>
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean)
      .pop();
  const line = last(run.stderr) ?? last(run.stdout);
  if (line) {
    return line.slice(0, 200);
  }
  return run.code === null ? 'stopped by a signal' : `exit code ${run.code}`;
}
