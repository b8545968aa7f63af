import { Injectable, Logger } from '@nestjs/common';
import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { AppConfig } from '../../config/configuration';
import { measureSms } from '../../common/text/gsm';
import { ProviderFolderSetting } from '../../config/provider-settings';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  InboundSink,
  ListenedPhone,
  OutgoingSms,
  PhoneStatus,
  SendResult,
  field,
  secretField,
  missingRequiredField,
} from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import { pollEvery } from '../poller';
import { parseGetAllSms, receivedMessages } from './gammu-sms';
import {
  GammuCommands,
  GammuFailure,
  gammuFailure,
  GammuRun,
  networkError,
  networkRefusalCause,
  said,
  sentParts,
} from './gammu.process';

/**
 * The one refusal of a config_file, whether it is missing, a folder, unreadable or outside
 * GAMMU_CONFIG_DIR: a user must not learn from it which paths exist on the server.
 */
const CONFIG_FILE_REFUSED =
  'config_file must name a gammu configuration file in the folder the operator set (GAMMU_CONFIG_DIR).';

const NO_CONFIG_DIR =
  'gammu phones are disabled on this server until its operator sets GAMMU_CONFIG_DIR to the folder of their configuration files.';

/**
 * The folder gammu configuration files must lie in. Unset, gammu phones are refused, so that
 * users cannot point gammu at the server's files.
 */
export const GAMMU_CONFIG_DIR: ProviderFolderSetting = {
  kind: 'folder',
  variable: 'GAMMU_CONFIG_DIR',
};

/** A modem as gammu is run for it: its configuration file, checked and without symbolic links. */
interface Modem {
  configFile: string;
  pin: string | undefined;
}

/**
 * A GSM modem driven by the `gammu` command found on the PATH. Delivery reports would come
 * back through the modem as status-report SMS; reading them is not supported, so messages
 * sent through gammu stay `unknown`. A phone's config_file is chosen by the user but read by
 * gammu with the server's rights, so it must lie in the folder the operator set.
 */
@Injectable()
export class GammuAdapter implements Adapter {
  private readonly logger = new Logger(GammuAdapter.name);
  private readonly commands = new GammuCommands();

  readonly descriptor: AdapterDescriptor = {
    id: 'gammu',
    alias: 'adapters\\GammuAdapter',
    callbackId: 'gammu_adapter',
    name: 'Gammu',
    description: 'Sends through a GSM modem with the gammu command.',
    fields: [
      field(
        'config_file',
        'The gammu configuration file: its name, or its path, in the folder the operator set (GAMMU_CONFIG_DIR).',
        true,
      ),
      secretField('pin', 'SIM PIN code.', false),
    ],
    hideData: false,
    settings: [GAMMU_CONFIG_DIR],
  };
  /** `gammu sendsms TEXT … -flash` sends a class 0 SMS. */
  readonly capabilities: AdapterCapabilities = { flash: true, mms: false };

  constructor(private readonly config: AppConfig) {}

  async test(data: AdapterData): Promise<string | null> {
    const problem = missingRequiredField(this.descriptor, data) ?? pinProblem(data);
    if (problem) {
      return problem;
    }
    const modem = await this.modem(data);
    if (typeof modem === 'string') {
      return modem;
    }
    const deadline = this.deadline();
    const identify = await this.gammu(modem, ['identify'], deadline);
    if (identify.kind !== 'exited' || identify.code !== 0) {
      return this.failure('identify', identify).reason;
    }
    return (await this.unlock(modem, deadline))?.reason ?? null;
  }

  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const modem = missingRequiredField(this.descriptor, data) ?? (await this.modem(data));
    const problem = typeof modem === 'string' ? modem : await this.identifies(modem);
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
    const modem =
      missingRequiredField(this.descriptor, data) ?? pinProblem(data) ?? (await this.modem(data));
    if (typeof modem === 'string') {
      return { outcome: 'permanent', reason: modem, cause: 'phone' };
    }
    const deadline = this.deadline();
    const locked = await this.unlock(modem, deadline);
    if (locked) {
      return outcome(locked);
    }
    const unicode = measureSms(sms.text).encoding !== 'GSM-7';
    const run = await this.gammu(
      modem,
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
            // The recipient's: another phone might deliver it a second time.
            cause: 'recipient',
          };
    }
    if (references.length > 0) {
      // The network took some parts: sending again would repeat them.
      return {
        outcome: 'permanent',
        reason: `gammu sent part of the message, then failed (${run.kind === 'exited' ? said(run) : 'it did not finish in time'}): check the modem.`,
        // The recipient's: another phone would send the parts that went out again.
        cause: 'recipient',
      };
    }
    const refused = run.kind === 'exited' ? networkError(run.stdout) : null;
    if (refused !== null) {
      return {
        outcome: 'permanent',
        reason: `The network refused the message (error ${refused}, as gammu sendsms reports it): check the destination number and the SIM's subscription.`,
        cause: networkRefusalCause(refused),
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
    const problem =
      missingRequiredField(this.descriptor, phone.data) ??
      pinProblem(phone.data) ??
      (this.configDir() === null ? NO_CONFIG_DIR : null);
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
    const warn = (problem: string) =>
      this.logger.warn(`Gammu reception for phone ${phone.id}: ${problem}`);
    const modem = await this.modem(phone.data);
    if (typeof modem === 'string') {
      warn(modem);
      return;
    }
    const deadline = this.deadline();
    const locked = await this.unlock(modem, deadline);
    if (locked) {
      warn(locked.reason);
      return;
    }
    const listing = await this.gammu(modem, ['getallsms'], deadline);
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
      if (await this.deleteAll(modem, locations, warn)) {
        stored.delete(key);
      }
    }
  }

  /** Deletes the locations one by one; false, having said why, when one is not deleted. */
  private async deleteAll(
    modem: Modem,
    locations: number[],
    warn: (problem: string) => void,
  ): Promise<boolean> {
    for (const location of locations) {
      const run = await this.gammu(modem, ['deletesms', '0', String(location)], this.deadline());
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
  private async unlock(modem: Modem, deadline: number): Promise<GammuFailure | null> {
    if (!modem.pin) {
      return null;
    }
    const security = await this.gammu(modem, ['getsecuritystatus'], deadline);
    if (security.kind !== 'exited' || security.code !== 0) {
      return this.failure('getsecuritystatus', security);
    }
    if (/nothing/i.test(security.stdout)) {
      return null;
    }
    const unlock = await this.gammu(modem, ['entersecuritycode', 'PIN', modem.pin], deadline);
    if (unlock.kind === 'exited' && unlock.code !== 0) {
      return {
        reason: `gammu could not unlock the SIM with this PIN (${said(unlock)}): check pin.`,
        transient: false,
      };
    }
    return unlock.kind === 'exited' ? null : this.failure('entersecuritycode', unlock);
  }

  private configDir(): string | null {
    return this.config.providers.settings.folder(GAMMU_CONFIG_DIR);
  }

  /**
   * The phone's modem, or why gammu cannot be run for it. config_file is resolved in
   * GAMMU_CONFIG_DIR (a bare name is a file of that folder), then both are resolved to their
   * real paths, so that neither `..` nor a symbolic link leads out of the folder; gammu is
   * given the real path, which no link swapped later can redirect.
   */
  private async modem(data: AdapterData): Promise<Modem | string> {
    const folder = this.configDir();
    if (folder === null) {
      return NO_CONFIG_DIR;
    }
    try {
      const root = await realpath(folder);
      const file = await realpath(resolve(folder, data.config_file));
      const inside = file.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
      if (!inside || !(await stat(file)).isFile()) {
        return CONFIG_FILE_REFUSED;
      }
      await access(file, constants.R_OK);
      return { configFile: file, pin: data.pin };
    } catch {
      return CONFIG_FILE_REFUSED;
    }
  }

  private async identifies(modem: Modem): Promise<string | null> {
    const identify = await this.gammu(modem, ['identify'], this.deadline());
    return identify.kind === 'exited' && identify.code === 0
      ? null
      : this.failure('identify', identify).reason;
  }

  private deadline(): number {
    return Date.now() + this.config.providers.timeoutMs;
  }

  private gammu(modem: Modem, command: string[], deadline: number): Promise<GammuRun> {
    return this.commands.run(modem.configFile, command, deadline);
  }

  private failure(command: string, run: GammuRun): GammuFailure {
    return gammuFailure(command, run, this.config.providers.timeoutMs);
  }
}

/**
 * A SendResult for a failure of gammu itself, before the network answered: the modem, its SIM,
 * its PIN or its configuration, so a permanent one is the phone's.
 */
function outcome({ reason, transient }: GammuFailure): SendResult {
  return transient
    ? { outcome: 'transient', reason }
    : { outcome: 'permanent', reason, cause: 'phone' };
}

/** Why `pin` cannot be a SIM PIN, or null when it can (or is empty). */
function pinProblem(data: AdapterData): string | null {
  return data.pin && !/^\d{4,8}$/.test(data.pin) ? 'pin must be 4 to 8 digits.' : null;
}
