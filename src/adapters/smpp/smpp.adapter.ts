import { Injectable, Logger } from '@nestjs/common';
import { connect, errors } from 'smpp';
import { AppConfig } from '../../config/configuration';
import { PhoneStatus } from '../../phones/entities/phone.entity';
import { Adapter, AdapterCapabilities, AdapterData, field, missingRequiredField } from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import { describeNetworkError, formatDuration } from '../provider-http';

/** SMPP 3.4's C-Octet String sizes, less their terminating NUL. */
const MAX_LENGTHS: Readonly<Record<string, number>> = {
  system_id: 15,
  password: 8,
  system_type: 12,
  source_addr: 20,
};

const SMPP_VERSION_3_4 = 0x34;

/** An SMSC, through an SMPP 3.4 transceiver session. */
@Injectable()
export class SmppAdapter implements Adapter {
  private readonly logger = new Logger(SmppAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'smpp',
    alias: null,
    name: 'SMPP',
    description: 'Sends through an SMPP 3.4 connection to an SMSC.',
    fields: [
      field('host', 'SMSC host name or address.', true),
      field('port', 'SMSC port, usually 2775.', true),
      field('system_id', 'SMPP system_id (login).', true),
      field('password', 'SMPP password.', true),
      field('system_type', 'SMPP system_type, when the SMSC asks for one.', false),
      field('source_addr', 'Source address (number or name) of sent messages.', true),
    ],
    hideData: true,
  };
  readonly capabilities: AdapterCapabilities = { flash: false, mms: false };

  constructor(private readonly config: AppConfig) {}

  async test(data: AdapterData): Promise<string | null> {
    return this.invalid(data) ?? (await this.bind(data));
  }

  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const problem = this.invalid(data) ?? (await this.bind(data));
    if (problem) {
      this.logger.warn(`SMPP status check: ${problem}`);
      return 'unavailable';
    }
    return 'available';
  }

  private invalid(data: AdapterData): string | null {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return missing;
    }
    const port = String(data.port);
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
      return 'port must be an integer from 1 to 65535.';
    }
    for (const [name, max] of Object.entries(MAX_LENGTHS)) {
      if ((data[name] ?? '').length > max) {
        return `${name} must be at most ${max} characters (SMPP 3.4).`;
      }
    }
    return null;
  }

  /**
   * Null when the SMSC accepts a transceiver bind with the credentials, else why not. A bound
   * session is unbound before it is closed, as SMSCs expect; the whole exchange is bounded.
   */
  private bind(data: AdapterData): Promise<string | null> {
    const where = `${data.host}:${data.port}`;
    const timeout = formatDuration(this.config.providers.timeoutMs);
    return new Promise((resolve) => {
      let stage: 'connecting' | 'binding' | 'bound' = 'connecting';
      let settled = false;
      const session = connect({ host: data.host, port: Number(data.port) });
      const finish = (reason: string | null) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          session.destroy();
          resolve(stage === 'bound' ? null : reason);
        }
      };
      const timer = setTimeout(
        () =>
          finish(
            stage === 'connecting'
              ? `Could not reach the SMSC at ${where} within ${timeout}.`
              : `The SMSC at ${where} did not answer the bind within ${timeout}.`,
          ),
        this.config.providers.timeoutMs,
      );
      session.on('error', (error: NodeJS.ErrnoException) =>
        finish(
          stage === 'connecting'
            ? `Could not reach the SMSC at ${where} (${describeNetworkError(error.code)}).`
            : `The SMSC at ${where} broke the connection (${describeNetworkError(error.code)}).`,
        ),
      );
      session.on('close', () =>
        finish(`The SMSC at ${where} closed the connection before answering the bind.`),
      );
      session.on('connect', () => {
        stage = 'binding';
        session.bind_transceiver(
          {
            system_id: data.system_id,
            password: data.password,
            system_type: data.system_type ?? '',
            interface_version: SMPP_VERSION_3_4,
          },
          (response) => {
            if (response.command_status !== errors.ESME_ROK) {
              finish(
                `The SMSC refused the bind with ${statusName(response.command_status)}: check system_id, password and system_type.`,
              );
              return;
            }
            stage = 'bound';
            session.unbind(() => finish(null));
          },
        );
      });
    });
  }
}

/** The SMPP name of a command_status, e.g. ESME_RINVPASWD. */
function statusName(status: number): string {
  const name = Object.keys(errors).find((candidate) => errors[candidate] === status);
  return name ?? `command_status 0x${status.toString(16).padStart(8, '0')}`;
}
