import { Injectable, Logger } from '@nestjs/common';
import { Adapter, AdapterData, PhoneStatus } from '../adapters/adapter';
import { AdapterDataCipher, OpenedData, unreadableClause } from '../adapters/adapter-data.cipher';
import { checkAdapterData, refuseUnknownFields } from '../adapters/adapter-data.check';
import { AdapterDescriptor } from '../adapters/adapter.descriptor';
import { AdapterRegistry } from '../adapters/adapter.registry';
import { generateCallbackToken } from '../common/auth/api-key';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { CallbackUrls, callbackUrls } from '../common/http/callback-urls';
import { AuthenticatedUser } from '../common/http/request';
import { countingWindows, remainingVolume } from '../common/limits/remaining-volume';
import { isAbsent } from '../common/params/parse';
import { countryOf } from '../common/phone/phone-number';
import { AppConfig } from '../config/configuration';
import { EntriesService } from '../entries/entries.service';
import { Row } from '../entries/entries.repository';
import { isSettingOn } from '../users/settings';
import { Phone } from './entities/phone.entity';
import {
  checkDataSize,
  checkStoredSize,
  CreatePhoneInput,
  ForcedStatus,
  ForceStatusInput,
  PhoneIdInput,
  UpdatePhoneInput,
} from './phones.params';
import { PhoneChanges, PhonesRepository } from './phones.repository';

/**
 * post_phone, get_phone, post_update_phone, delete_phone, post_update_phone_status and
 * post_change_phone_status (docs/api.md). Providers are only called outside transactions: the
 * adapter test runs before the phone is written.
 */
@Injectable()
export class PhonesService {
  private readonly logger = new Logger(PhonesService.name);

  constructor(
    private readonly phones: PhonesRepository,
    private readonly adapters: AdapterRegistry,
    private readonly secrets: AdapterDataCipher,
    private readonly config: AppConfig,
    private readonly entries: EntriesService,
  ) {}

  /** post_phone (docs/api.md#post_phone): the new phone's id. Rule 1 was checked by the parse. */
  async create(user: AuthenticatedUser, input: CreatePhoneInput): Promise<number> {
    const { name, priority, rate } = input;
    // Rule 2.
    if (await this.phones.isNameTaken(user.id, name)) {
      throw nameTaken(name);
    }
    // Rule 3.
    const limits = input.limits.get();
    // Rule 4.
    const adapter = this.findAdapter(input.adapter);
    // Rules 5 and 6.
    const adapterId = adapter.descriptor.id;
    refuseUnknownFields(adapter.descriptor, input.adapterData);
    const data = checkAdapterData(adapter.descriptor, input.adapterData, countryOf(user));
    checkDataSize(data);
    // The encryption's length does not depend on the phone's id, not known yet.
    checkStoredSize(this.secrets.seal(adapterId, data, { id: 0, id_user: user.id }));
    // Rule 7.
    await this.testAdapter(adapter, data, ErrorCode.CANNOT_CREATE);
    // Rule 8: a name taken by a concurrent request is told as rule 2 tells it; any other
    // failure is the service's, not the caller's (an INTERNAL_ERROR).
    let id: number;
    try {
      id = await this.phones.create(
        user.id,
        { name, adapter: adapterId, priority, rate },
        (phoneId) => this.secrets.seal(adapterId, data, { id: phoneId, id_user: user.id }),
        limits,
      );
    } catch (error) {
      if (await this.phones.isNameTaken(user.id, name)) {
        throw nameTaken(name);
      }
      throw error;
    }
    await this.registerCallbacks(adapter, data, await this.phones.findOwned(user.id, id));
    return id;
  }

  /**
   * get_phone (docs/api.md#get_phone): the phone as get_entries lists it, with what a client
   * editing it may see of its adapter data. The secrets' values never leave: only which are set.
   */
  async read(user: AuthenticatedUser, { id }: PhoneIdInput): Promise<Row> {
    // Rule 1.
    const [listed, phone] = await Promise.all([
      this.entries.findOne(user.id, 'phone', id),
      this.phones.findOwned(user.id, id),
    ]);
    if (!listed || !phone) {
      throw noPhone(ErrorCode.INVALID_PARAMETER, id);
    }
    // Rules 2 to 4.
    const { data, secretsSet, unreadable } = this.secrets.shown(phone);
    let problem: string | null = null;
    if (!this.adapters.find(phone.adapter)) {
      problem =
        `the phone's adapter "${phone.adapter}" is not one this server has: choose one of ` +
        `${this.adapterIds()} and send its adapter_data with post_update_phone.`;
    } else if (unreadable.length > 0) {
      problem =
        `${unreadableClause(unreadable)}: send ${unreadable.length > 1 ? 'them' : 'it'} again with ` +
        'post_update_phone; the phone cannot send until then.';
    }
    return {
      ...listed,
      adapter_data: data,
      secrets_set: secretsSet,
      unreadable_secrets: unreadable,
      adapter_data_error: problem,
    };
  }

  /**
   * post_update_phone (docs/api.md#post_update_phone). A field not sent keeps its stored value. The
   * adapter's checks and test run when `adapter` or `adapter_data` is sent, on the data the phone
   * will have.
   */
  async update(user: AuthenticatedUser, input: UpdatePhoneInput): Promise<true> {
    const phoneId = input.id;
    // Rule 1.
    const phone = await this.phones.findOwned(user.id, phoneId);
    if (!phone) {
      throw noPhone(ErrorCode.CANNOT_UPDATE, phoneId);
    }
    // Rule 2.
    const {
      name,
      adapter: adapterName,
      priority,
      rate,
      adapterData: sentData,
    } = input.changes.get();
    // Rule 3.
    if (name !== undefined && (await this.phones.isNameTaken(user.id, name, phone.id))) {
      throw nameTaken(name);
    }
    // Rule 4.
    const limits = input.limits.get();
    const changes: PhoneChanges = { name, priority, rate };
    if (adapterName !== undefined || sentData !== undefined) {
      const adapter = this.findAdapter(adapterName ?? phone.adapter);
      const sameAdapter = this.adapters.find(phone.adapter) === adapter;
      if (sentData !== undefined) {
        refuseUnknownFields(adapter.descriptor, sentData);
      }
      const data = checkAdapterData(
        adapter.descriptor,
        nextData(adapter.descriptor, this.secrets.open(phone), sentData, sameAdapter),
        countryOf(user),
      );
      checkDataSize(data);
      const stored = this.secrets.seal(adapter.descriptor.id, data, phone);
      checkStoredSize(stored);
      // Rule 5.
      await this.testAdapter(adapter, data, ErrorCode.CANNOT_UPDATE);
      changes.adapter = adapter.descriptor.id;
      changes.adapter_data = stored;
    }
    // Rule 6.
    let updated: boolean;
    try {
      updated = await this.phones.update(user.id, phone.id, withoutUndefined(changes), limits);
      if (updated && changes.adapter !== undefined) {
        const now = await this.phones.findOwned(user.id, phone.id);
        await this.registerCallbacks(
          this.findAdapter(changes.adapter),
          this.secrets.open(now ?? phone).data,
          now,
        );
      }
    } catch (error) {
      if (name !== undefined && (await this.phones.isNameTaken(user.id, name, phone.id))) {
        throw nameTaken(name);
      }
      throw error;
    }
    if (!updated) {
      throw noPhone(ErrorCode.CANNOT_UPDATE, phoneId);
    }
    return true;
  }

  /**
   * post_phone_callback_token (docs/api.md#post_phone_callback_token): a new token, which ends
   * the old one's URLs at once; the phone's new callback URLs (null without PUBLIC_URL).
   */
  async rotateCallbackToken(
    user: AuthenticatedUser,
    { id: phoneId }: PhoneIdInput,
  ): Promise<CallbackUrls | null> {
    const token = generateCallbackToken();
    if (!(await this.phones.setCallbackToken(user.id, phoneId, token))) {
      throw noPhone(ErrorCode.CANNOT_UPDATE, phoneId);
    }
    const phone = await this.phones.findOwned(user.id, phoneId);
    const adapter = phone && this.adapters.find(phone.adapter);
    if (phone && adapter) {
      await this.registerCallbacks(adapter, this.secrets.open(phone).data, phone);
    }
    return callbackUrls(this.config, token);
  }

  /**
   * Points the provider's callbacks at the phone's URLs where its adapter registers them
   * (docs/adapters.md#callback-urls). The phone stands whatever the provider says: a failure
   * is logged for the operator, and the phone's listing shows the URLs to register by hand.
   */
  private async registerCallbacks(
    adapter: Adapter,
    data: AdapterData,
    phone: Phone | null,
  ): Promise<void> {
    const urls = phone && callbackUrls(this.config, phone.callback_token);
    if (!adapter.registerCallbacks || !urls) {
      return;
    }
    const problem = await adapter.registerCallbacks(data, urls);
    if (problem) {
      this.logger.warn(`Phone ${phone.id}'s callbacks are not registered: ${problem}`);
    }
  }

  /** delete_phone (docs/api.md#delete_phone). */
  async delete(user: AuthenticatedUser, { id: phoneId }: PhoneIdInput): Promise<true> {
    // Rule 1: nothing deleted (no such phone, or another user's) is CANNOT_DELETE.
    if (!(await this.phones.deleteOwned(user.id, phoneId))) {
      throw noPhone(ErrorCode.CANNOT_DELETE, phoneId);
    }
    return true;
  }

  /**
   * post_update_phone_status (docs/api.md#post_update_phone_status): the phone's new status.
   */
  async checkStatus(user: AuthenticatedUser, { id: phoneId }: PhoneIdInput): Promise<PhoneStatus> {
    // Rule 1.
    const phone = await this.phones.findOwned(user.id, phoneId);
    if (!phone) {
      throw noPhone(ErrorCode.CANNOT_UPDATE, phoneId);
    }
    // Rule 2.
    if (phone.status === 'disabled') {
      throw disabledPhone(phoneId);
    }
    // Rule 3 (limit reached), else rule 4 (the adapter's status).
    let status: PhoneStatus;
    if (
      isSettingOn(user.settings, 'phone_limit') &&
      (await this.remainingVolume(user, phone)) < 1
    ) {
      status = 'limit_reached';
    } else {
      const opened = this.secrets.open(phone);
      if (opened.unreadable.length > 0) {
        // It cannot send either: the automatic phone choice must pass it by.
        await this.phones.storeStatus(user.id, phone.id, 'unavailable', false);
        throw ApiError.refused(
          ErrorCode.CANNOT_UPDATE,
          `${unreadableClause(opened.unreadable)}: send its adapter_data again with post_update_phone; ` +
            'the phone is unavailable until then.',
        );
      }
      status = await this.reportedStatus(phone, opened.data);
    }
    // Rule 5: stored and answered.
    if (!(await this.phones.storeStatus(user.id, phone.id, status, false))) {
      // Deleted or disabled while the provider was asked: say which.
      const now = await this.phones.findOwned(user.id, phone.id);
      throw now ? disabledPhone(phoneId) : noPhone(ErrorCode.CANNOT_UPDATE, phoneId);
    }
    return status;
  }

  /**
   * post_change_phone_status (docs/api.md#post_change_phone_status): the status set. Rule 1 was
   * checked by the parse.
   */
  async forceStatus(user: AuthenticatedUser, input: ForceStatusInput): Promise<ForcedStatus> {
    // Rules 2 and 3: not owned is CANNOT_UPDATE; else the status is stored and answered.
    if (!(await this.phones.storeStatus(user.id, input.id, input.status, true))) {
      throw noPhone(ErrorCode.CANNOT_UPDATE, input.id);
    }
    return input.status;
  }

  private findAdapter(name: string): Adapter {
    const adapter = this.adapters.find(name);
    if (!adapter) {
      throw ApiError.invalid(`adapter "${name}" does not exist; use one of ${this.adapterIds()}.`);
    }
    return adapter;
  }

  /** The adapters' ids, as the messages of a missing or unknown adapter list them. */
  adapterIds(): string {
    return this.adapters.adapters.map((adapter) => adapter.descriptor.id).join(', ');
  }

  /**
   * Runs the adapter's test. A field it refuses whatever the provider would say (a destination
   * the outbound policy refuses) is an invalid parameter naming the field; any other refusal
   * is the provider's, a creation or update refused (HTTP 422).
   */
  private async testAdapter(
    adapter: Adapter,
    data: AdapterData,
    code: ErrorCode.CANNOT_CREATE | ErrorCode.CANNOT_UPDATE,
  ): Promise<void> {
    const refusal = await adapter.test(data);
    if (refusal === null) {
      return;
    }
    if (typeof refusal !== 'string') {
      throw ApiError.invalid(`adapter_data[${refusal.field}] : ${refusal.reason}`);
    }
    throw ApiError.refused(
      code,
      `the ${adapter.descriptor.id} adapter refused adapter_data: ${refusal}`,
    );
  }

  /** What the phone may still send under its limits, now; Infinity without any. */
  private async remainingVolume(user: AuthenticatedUser, phone: Phone): Promise<number> {
    const limits = await this.phones.limitsOf(user.id, phone.id);
    const windows = countingWindows(limits, new Date(), this.config.timeZone);
    const sent = await this.phones.countSentSince(
      user.id,
      phone.id,
      windows.map((window) => window.since),
    );
    return remainingVolume(windows, (since) => sent.get(since) ?? 0);
  }

  /**
   * What the phone's adapter reports. A phone whose adapter is no longer known, or whose provider
   * cannot be asked, cannot send: it is `unavailable`.
   */
  private async reportedStatus(phone: Phone, data: AdapterData): Promise<PhoneStatus> {
    const adapter = this.adapters.find(phone.adapter);
    if (!adapter) {
      this.logger.warn(`Phone ${phone.id} has the unknown adapter "${phone.adapter}".`);
      return 'unavailable';
    }
    try {
      return await adapter.checkStatus(data);
    } catch (error) {
      this.logger.warn(
        { err: error },
        `The ${adapter.descriptor.id} adapter could not check the status of phone ${phone.id}.`,
      );
      return 'unavailable';
    }
  }
}

function nameTaken(name: string): ApiError {
  return ApiError.invalid(`name "${name}" is already used by another of your phones.`);
}

/** The same answer whether the phone does not exist or is another user's. */
function noPhone(
  code: ErrorCode.INVALID_PARAMETER | ErrorCode.CANNOT_UPDATE | ErrorCode.CANNOT_DELETE,
  id: number,
): ApiError {
  return ApiError.notFound(code, `id : you have no phone ${id}.`);
}

function disabledPhone(id: number): ApiError {
  return ApiError.refused(
    ErrorCode.CANNOT_UPDATE,
    `the phone was disabled manually; re-enable it with POST /api/phone/${id}/status/force/ ` +
      'and status=available.',
  );
}

/**
 * The adapter data an update checks and stores. Sent data replace the stored data, except that,
 * with the same adapter, a required field left out (or blank) and a secret field left out keep
 * their stored value: a client changes one field without sending every secret again, and one
 * that never sees the secrets (they are never listed) cannot drop an optional one by mistake;
 * an optional secret sent empty is emptied. Data not sent keep the stored data. A stored secret
 * that no longer decrypts cannot be kept: it must be sent again.
 */
function nextData(
  descriptor: AdapterDescriptor,
  stored: OpenedData,
  sent: Record<string, unknown> | undefined,
  sameAdapter: boolean,
): Record<string, unknown> {
  if (sent !== undefined && !sameAdapter) {
    return sent;
  }
  const data: Record<string, unknown> = { ...(sent ?? stored.data) };
  for (const field of descriptor.fields) {
    const value = data[field.name];
    const blank = isAbsent(value) || (typeof value === 'string' && value.trim() === '');
    const keep =
      (blank && field.required) ||
      (field.secret === true && sent !== undefined && !Object.hasOwn(sent, field.name));
    if (blank && (sent === undefined || keep) && stored.unreadable.includes(field.name)) {
      throw ApiError.missing(
        `adapter_data[${field.name}] must be sent again: ${unreadableClause([field.name])}.`,
      );
    }
    if (keep && stored.data[field.name] !== undefined) {
      data[field.name] = stored.data[field.name];
    }
  }
  return data;
}

function withoutUndefined(changes: PhoneChanges): PhoneChanges {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}
