import { Injectable, Logger } from '@nestjs/common';
import { Adapter, CallbackRequest } from '../adapters/adapter';
import { AdapterRegistry } from '../adapters/adapter.registry';
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
    const verify = adapter.verifyCallback?.bind(adapter);
    await this.inbound.applyReceipt(
      user.id,
      adapter.descriptor.id,
      report,
      verify && ((data) => verify(request, data)),
    );
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
}

function describeAdapter(name: string, adapter: Adapter | undefined): string {
  return adapter ? `${adapter.descriptor.id}, which has none,` : `unknown adapter "${name}"`;
}
