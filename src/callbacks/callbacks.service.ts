import { Injectable, Logger } from '@nestjs/common';
import { Adapter, CallbackRequest, StatusReport } from '../adapters/adapter';
import { AdapterRegistry } from '../adapters/adapter.registry';
import { CALLBACK_TOKEN_PARAM } from '../common/http/callback-urls';
import { AuthenticatedUser } from '../common/http/request';
import { InboundService } from '../inbound/inbound.service';

/**
 * The provider callbacks: which adapter and phone a request is for, and whether the adapter
 * understands it; what it reports is stored by InboundService. Nothing here answers the
 * provider: whatever is refused is logged, never returned.
 */
@Injectable()
export class CallbacksService {
  private readonly logger = new Logger(CallbacksService.name);

  constructor(
    private readonly inbound: InboundService,
    private readonly adapters: AdapterRegistry,
  ) {}

  /** `/callback/status/{adapter}/`: a receipt for one of the caller's sent messages. */
  async statusCallback(
    user: AuthenticatedUser,
    adapterName: string,
    request: CallbackRequest,
  ): Promise<void> {
    const adapter = this.adapters.findForCallback(adapterName);
    if (!adapter?.parseStatusCallback) {
      this.logger.debug(`Status callback for ${describeAdapter(adapterName, adapter)} ignored.`);
      return;
    }
    const report = adapter.parseStatusCallback(request);
    if (!report) {
      this.logger.debug(`Status callback of ${adapter.descriptor.id} ignored: not a receipt.`);
      return;
    }
    await this.applyReceipt(user, adapter, report, request);
  }

  /**
   * `/callback/phone/{status|reception}/?callback_token=…`: a receipt or a message for the phone
   * the token names, read by that phone's adapter and checked with its signature where the
   * provider signs. False when no phone of an active user has the token.
   */
  async tokenCallback(kind: string, request: CallbackRequest): Promise<boolean> {
    const token = request.query[CALLBACK_TOKEN_PARAM] ?? '';
    const known = (TOKEN_KINDS as readonly string[]).includes(kind) && token !== '';
    const phone = known ? await this.inbound.phoneByToken(token) : null;
    if (!phone) {
      return false;
    }
    const adapter = this.adapters.find(phone.adapter);
    const verify = adapter?.verifyCallback?.bind(adapter);
    const problem = verify && this.inbound.signatureProblem(phone, (data) => verify(request, data));
    if (problem) {
      this.logger.warn(`Callback for phone ${phone.id} ignored: ${problem}.`);
      return true;
    }
    const sms = kind === 'reception' ? (adapter?.parseReceptionCallback?.(request) ?? null) : null;
    if (sms) {
      await this.inbound.received({ id: phone.id, id_user: Number(phone.id_user), data: {} }, sms);
      return true;
    }
    // As at the reception route: one URL per number may get the receipts of what it sent too.
    const report = adapter?.parseStatusCallback?.(request) ?? null;
    if (!report) {
      this.logger.debug(`${kind} callback of phone ${phone.id} ignored: nothing it reads.`);
      return true;
    }
    await this.inbound.applyReceipt(Number(phone.id_user), phone.adapter, report, undefined);
    return true;
  }

  /** `/callback/reception/{adapter}/{id_phone}/`: a message received by one of the caller's phones. */
  async receptionCallback(
    user: AuthenticatedUser,
    adapterName: string,
    phoneIdParam: string,
    request: CallbackRequest,
  ): Promise<void> {
    const adapter = this.adapters.findForCallback(adapterName);
    if (!adapter?.parseReceptionCallback) {
      this.logger.debug(`Reception callback for ${describeAdapter(adapterName, adapter)} ignored.`);
      return;
    }
    const phoneId = /^\d{1,15}$/.test(phoneIdParam) ? Number(phoneIdParam) : null;
    const phone = phoneId === null ? null : await this.inbound.ownPhone(user.id, phoneId);
    if (!phone || phone.adapter !== adapter.descriptor.id) {
      this.logger.warn(
        `Reception callback of user ${user.id} ignored: phone ${phoneIdParam} is not one of ` +
          `theirs using ${adapter.descriptor.id}.`,
      );
      return;
    }
    const sms = adapter.parseReceptionCallback(request);
    if (!sms) {
      // Providers with one webhook URL per number (Telnyx's messaging profile) post the
      // receipts of the messages it sent there too.
      const report = adapter.parseStatusCallback?.(request);
      if (report) {
        await this.applyReceipt(user, adapter, report, request);
        return;
      }
      this.logger.debug(`Reception callback of ${adapter.descriptor.id} ignored: no message.`);
      return;
    }
    const verify = adapter.verifyCallback?.bind(adapter);
    const problem = verify && this.inbound.signatureProblem(phone, (data) => verify(request, data));
    if (problem) {
      this.logger.warn(`Reception callback for phone ${phone.id} ignored: ${problem}.`);
      return;
    }
    await this.inbound.store(user.id, user.settings, phone.id, sms);
  }

  /** Applies a receipt, checked with the signature of the phone that sent the message. */
  private applyReceipt(
    user: AuthenticatedUser,
    adapter: Adapter,
    report: StatusReport,
    request: CallbackRequest,
  ): Promise<void> {
    const verify = adapter.verifyCallback?.bind(adapter);
    return this.inbound.applyReceipt(
      user.id,
      adapter.descriptor.id,
      report,
      verify && ((data) => verify(request, data)),
    );
  }
}

/** The kinds of callback a phone's token URLs serve. */
const TOKEN_KINDS = ['status', 'reception'] as const;

function describeAdapter(name: string, adapter: Adapter | undefined): string {
  return adapter ? `${adapter.descriptor.id}, which has none,` : `unknown adapter "${name}"`;
}
