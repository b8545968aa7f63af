import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { PDU, errors } from 'smpp';
import {
  RecordingSink,
  adapterDeps,
  closedPort,
  outgoingSms as sms,
} from '../../../test/support/adapters.factories';
import { FakeSmsc } from '../../../test/support/fake-smsc';
import { waitFor } from '../../../test/support/instruments';
import { ListenedPhone } from '../adapter';
import { SmppAdapter } from './smpp.adapter';
import { relativeTime } from './smpp.codec';

/**
 * Binds again within milliseconds and sends enquire_link within a fraction of a second, so that
 * tests need not wait. An enquire_link left unanswered a whole period drops a session: shorter
 * periods dropped the sessions of a busy case when a loaded machine held the fake's event loop.
 */
class QuickSmppAdapter extends SmppAdapter {
  protected override readonly timings = { enquireLinkMs: 200, retryFirstMs: 5, retryMaxMs: 20 };
}

describe('SmppAdapter', () => {
  let smsc: FakeSmsc;
  let data: Record<string, string>;
  let phone: ListenedPhone;
  let warnings: jest.SpyInstance;
  let errorLogs: jest.SpyInstance;
  let logs: jest.SpyInstance;
  const adapter = new SmppAdapter(...adapterDeps());
  const impatient = new SmppAdapter(...adapterDeps({ PROVIDER_TIMEOUT_MS: '200' }));
  const quick = new QuickSmppAdapter(...adapterDeps());

  beforeEach(async () => {
    smsc = new FakeSmsc();
    const port = await smsc.start();
    data = {
      host: '127.0.0.1',
      port: String(port),
      system_id: 'smsgw',
      password: 'secret',
      system_type: 'SMSGW',
      source_addr: '+33612345678',
    };
    phone = { id: 7, id_user: 1, data };
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    errorLogs = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    logs = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await Promise.all([adapter, impatient, quick].map((each) => each.onApplicationShutdown()));
    warnings.mockRestore();
    errorLogs.mockRestore();
    logs.mockRestore();
    await smsc.stop();
  });

  describe('test', () => {
    it('binds as a transceiver with the credentials, then unbinds', async () => {
      expect(await adapter.test(data)).toBeNull();
      expect(smsc.commands).toEqual(['bind_transceiver', 'unbind']);
      expect(smsc.binds[0]).toMatchObject({
        system_id: 'smsgw',
        password: 'secret',
        system_type: 'SMSGW',
        interface_version: 0x34,
      });
    });

    it('binds without a system_type', async () => {
      const { system_type: _, ...withoutType } = data;

      expect(await adapter.test(withoutType)).toBeNull();
      expect(smsc.binds[0].system_type).toBe('');
    });

    it('names the SMPP status of a refused password', async () => {
      expect(await adapter.test({ ...data, password: 'wrong' })).toBe(
        'The SMSC refused the bind with ESME_RINVPASWD: check system_id, password and system_type.',
      );
    });

    it('names the SMPP status of a refused system_id', async () => {
      expect(await adapter.test({ ...data, system_id: 'nobody' })).toBe(
        'The SMSC refused the bind with ESME_RINVSYSID: check system_id, password and system_type.',
      );
    });

    it('reports an SMSC that hangs up instead of answering the bind', async () => {
      smsc.mode = 'hang_up';

      expect(await adapter.test(data)).toBe(
        `The SMSC at 127.0.0.1:${data.port} closed the connection before answering the bind.`,
      );
    });

    it('gives up on an SMSC that never answers the bind within the provider timeout', async () => {
      smsc.mode = 'silent';

      expect(await impatient.test(data)).toBe(
        `The SMSC at 127.0.0.1:${data.port} did not answer the bind within 200 ms.`,
      );
    });

    it('reports an SMSC it cannot connect to, without throwing', async () => {
      const port = await closedPort();

      expect(await adapter.test({ ...data, port: String(port) })).toBe(
        `Could not reach the SMSC at 127.0.0.1:${port} (connection refused).`,
      );
    });

    it.each(['0', '65536', 'abc', '2775.5', '-1', ' 2775'])(
      'refuses port %p without connecting',
      async (port) => {
        expect(await adapter.test({ ...data, port })).toBe(
          'port must be an integer from 1 to 65535.',
        );
        expect(smsc.commands).toEqual([]);
      },
    );

    it.each([
      ['system_id', 16],
      ['password', 9],
      ['system_type', 13],
      ['source_addr', 21],
    ])('refuses a %s longer than SMPP 3.4 allows', async (name, length) => {
      const max = length - 1;

      expect(await adapter.test({ ...data, [name]: 'x'.repeat(length) })).toBe(
        `${name} must be at most ${max} characters (SMPP 3.4).`,
      );
    });

    it.each(['', '   '])('refuses an empty source_addr %p', async (sourceAddr) => {
      expect(await adapter.test({ ...data, source_addr: sourceAddr })).toBe(
        'source_addr is required.',
      );
    });

    it.each([
      ['max_pending_submits', '0', 'an integer from 1 to 1000'],
      ['max_pending_submits', '1001', 'an integer from 1 to 1000'],
      ['max_pending_submits', '2.5', 'an integer from 1 to 1000'],
      ['max_pending_submits', ' 10', 'an integer from 1 to 1000'],
      ['binds', '0', 'an integer from 1 to 16'],
      ['binds', '17', 'an integer from 1 to 16'],
      ['binds', 'two', 'an integer from 1 to 16'],
      ['binds', '-1', 'an integer from 1 to 16'],
    ])('refuses %s %p without connecting', async (name, value, range) => {
      expect(await adapter.test({ ...data, [name]: value })).toBe(`${name} must be ${range}.`);
      expect(await adapter.send({ ...data, [name]: value }, sms())).toEqual({
        outcome: 'permanent',
        reason: `${name} must be ${range}.`,
        cause: 'phone',
      });
      expect(smsc.received).toEqual([]);
    });

    it('checks the credentials with one bind, however many sessions the phone asks for', async () => {
      expect(await adapter.test({ ...data, binds: '16', max_pending_submits: '1000' })).toBeNull();
      expect(await adapter.test({ ...data, binds: '', max_pending_submits: '' })).toBeNull();

      expect(smsc.commands).toEqual(['bind_transceiver', 'unbind', 'bind_transceiver', 'unbind']);
    });
  });

  describe('checkStatus', () => {
    it('reports an SMSC that binds as available', async () => {
      expect(await adapter.checkStatus(data)).toBe('available');
    });

    it('reports a refused bind as unavailable, logging no secret', async () => {
      expect(await adapter.checkStatus({ ...data, password: 'wrongpw' })).toBe('unavailable');
      expect(warnings).toHaveBeenCalled();
      expect(JSON.stringify(warnings.mock.calls)).not.toContain('wrongpw');
    });

    it('reports an unreachable SMSC as unavailable', async () => {
      const port = await closedPort();

      expect(await adapter.checkStatus({ ...data, port: String(port) })).toBe('unavailable');
    });

    it('reports an SMSC that never answers as unavailable', async () => {
      smsc.mode = 'silent';

      expect(await impatient.checkStatus(data)).toBe('unavailable');
    });

    it('reports a phone whose session is bound as available without binding again', async () => {
      const stop = adapter.listen(phone, new RecordingSink());
      await smsc.boundSession();

      expect(await adapter.checkStatus(data)).toBe('available');
      expect(smsc.count('bind_transceiver')).toBe(1);
      await stop();
    });
  });

  describe('send', () => {
    it('submits to the international destination from the international source_addr, asking for a receipt', async () => {
      expect(await adapter.send(data, sms())).toEqual({ outcome: 'sent', uid: 'msg-1' });

      expect(await smsc.nth('submit_sm')).toMatchObject({
        source_addr_ton: 1,
        source_addr_npi: 1,
        source_addr: '33612345678',
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        destination_addr: '33687654321',
        registered_delivery: 1,
        esm_class: 0,
        data_coding: 0,
        short_message: { message: 'Hello' },
      });
    });

    it('sends from an alphanumeric source_addr with TON 5', async () => {
      await adapter.send({ ...data, source_addr: 'SMSGW' }, sms());

      expect(await smsc.nth('submit_sm')).toMatchObject({
        source_addr_ton: 5,
        source_addr_npi: 0,
        source_addr: 'SMSGW',
      });
    });

    it('passes the validity left as a relative validity_period, and none without one', async () => {
      const before = Date.now();
      await adapter.send(data, sms({ validitySeconds: 5415 }));
      const after = Date.now();
      await adapter.send(data, sms({ validitySeconds: null }));

      // The fake's SMPP library reads a relative time back as the date it ends at.
      const validity = (await smsc.nth('submit_sm', 1)).validity_period as Date;
      expect(validity.getTime()).toBeGreaterThanOrEqual(before + 5415_000);
      expect(validity.getTime()).toBeLessThanOrEqual(after + 5415_000);
      expect((await smsc.nth('submit_sm', 2)).validity_period).toBeFalsy();
    });

    it.each([
      [5415, '000000013015000R'],
      [0, '000000000001000R'],
      [604_800, '000007000000000R'],
      [10_000_000, '000099235959000R'],
    ])('writes %p seconds as the relative time %p', (seconds, written) => {
      expect(relativeTime(seconds)).toBe(written);
    });

    it('codes a GSM 03.38 text, extension characters included, with data_coding 0', async () => {
      await adapter.send(data, sms({ text: 'Prix : 5€ [promo] à Paris' }));

      expect(await smsc.nth('submit_sm')).toMatchObject({
        data_coding: 0,
        short_message: { message: 'Prix : 5€ [promo] à Paris' },
      });
    });

    it('codes any other text as UCS-2 with data_coding 8', async () => {
      await adapter.send(data, sms({ text: 'Привет 👋' }));

      expect(await smsc.nth('submit_sm')).toMatchObject({
        data_coding: 8,
        short_message: { message: 'Привет 👋' },
      });
    });

    it.each([
      ['a GSM text longer than 160 characters', 'a'.repeat(161), 0],
      ['a UCS-2 text longer than 70 characters', 'й'.repeat(71), 8],
    ])('sends %s whole in message_payload', async (_, text, dataCoding) => {
      expect(await adapter.send(data, sms({ text }))).toEqual({ outcome: 'sent', uid: 'msg-1' });

      const submit = await smsc.nth('submit_sm');
      expect(submit).toMatchObject({ data_coding: dataCoding, message_payload: { message: text } });
      expect(submit.short_message).toEqual({ message: '' });
    });

    it.each([
      ['a GSM', 'Flash!', 0xf0],
      ['a UCS-2', 'Вспышка', 0x18],
    ])('sends %s flash message as message class 0', async (_, text, dataCoding) => {
      await adapter.send(data, sms({ text, flash: true }));

      expect(await smsc.nth('submit_sm')).toMatchObject({
        data_coding: dataCoding,
        short_message: { message: text },
      });
    });

    it('binds once for sends in a row and at the same time', async () => {
      await adapter.send(data, sms());
      const results = await Promise.all([adapter.send(data, sms()), adapter.send(data, sms())]);

      expect(results.map((result) => result.outcome)).toEqual(['sent', 'sent']);
      expect(smsc.count('submit_sm')).toBe(3);
      expect(smsc.count('bind_transceiver')).toBe(1);
    });

    it('binds with a corrected password on the next bind', async () => {
      const refused = await adapter.send({ ...data, password: 'wrong' }, sms());

      expect(refused.outcome).toBe('permanent');
      expect(await adapter.send(data, sms())).toEqual({ outcome: 'sent', uid: 'msg-1' });
    });

    it('reports a throttling SMSC as transient', async () => {
      smsc.answerSubmit = (pdu, session) =>
        session.send(pdu.response({ command_status: errors.ESME_RTHROTTLED }));

      expect(await adapter.send(data, sms())).toEqual({
        outcome: 'transient',
        reason: 'The SMSC asked smsgw to slow down (ESME_RTHROTTLED): try again later.',
      });
    });

    it.each(['ESME_RMSGQFUL', 'ESME_RSYSERR'])('reports %s as transient', async (name) => {
      smsc.answerSubmit = (pdu, session) =>
        session.send(pdu.response({ command_status: errors[name] }));

      const result = await adapter.send(data, sms());

      expect(result).toMatchObject({ outcome: 'transient' });
      expect(result).toHaveProperty('reason', expect.stringContaining(`(${name})`));
    });

    it('reports an invalid destination as permanent, naming the status', async () => {
      smsc.answerSubmit = (pdu, session) =>
        session.send(pdu.response({ command_status: errors.ESME_RINVDSTADR }));

      expect(await adapter.send(data, sms())).toEqual({
        outcome: 'permanent',
        reason: 'The SMSC refused the message with ESME_RINVDSTADR: check the destination number.',
        cause: 'recipient',
      });
    });

    // Each refusal SMPP names, and whose it is (docs/adapters.md#refusals).
    it.each<[string, 'recipient' | 'phone']>([
      ['ESME_RINVDSTADR', 'recipient'],
      ['ESME_RINVDSTTON', 'recipient'],
      ['ESME_RINVDSTNPI', 'recipient'],
      ['ESME_RX_R_APPN', 'recipient'],
      ['ESME_RX_P_APPN', 'recipient'],
      ['ESME_RDELIVERYFAILURE', 'recipient'],
      ['ESME_RSUBMITFAIL', 'recipient'],
      ['ESME_RUNKNOWNERR', 'recipient'],
      ['ESME_RINVSRCADR', 'phone'],
      ['ESME_RINVSRCTON', 'phone'],
      ['ESME_RINVSRCNPI', 'phone'],
      ['ESME_RINVSYSID', 'phone'],
      ['ESME_RINVPASWD', 'phone'],
      ['ESME_RBINDFAIL', 'phone'],
      ['ESME_RINVBNDSTS', 'phone'],
      ['ESME_RINVSERTYP', 'phone'],
      ['ESME_RPROHIBITED', 'phone'],
      ['ESME_RINVMSGLEN', 'phone'],
      ['ESME_RINVDCS', 'phone'],
    ])('classifies a submit_sm_resp with %s as the %s refusing', async (name, cause) => {
      smsc.answerSubmit = (pdu, session) =>
        session.send(pdu.response({ command_status: errors[name] }));

      expect(await adapter.send(data, sms())).toMatchObject({ outcome: 'permanent', cause });
    });

    it('reports a connection lost after submit_sm as permanent, its outcome unknown', async () => {
      smsc.answerSubmit = (_pdu, session) => session.close();

      expect(await adapter.send(data, sms())).toEqual({
        outcome: 'ambiguous',
        reason: `The SMSC at 127.0.0.1:${data.port} closed the connection before answering the message: whether it took the message is unknown, so it is not sent again.`,
      });
      expect(smsc.count('submit_sm')).toBe(1);
    });

    it('reports a submit_sm left unanswered as permanent, its outcome unknown', async () => {
      smsc.answerSubmit = () => undefined;

      expect(await impatient.send(data, sms())).toEqual({
        outcome: 'ambiguous',
        reason: `The SMSC at 127.0.0.1:${data.port} did not answer the message within 200 ms: whether it took the message is unknown, so it is not sent again.`,
      });
    });

    it('reports an SMSC it cannot connect to as transient', async () => {
      const port = await closedPort();

      expect(await adapter.send({ ...data, port: String(port) }, sms())).toEqual({
        outcome: 'transient',
        reason: `Could not reach the SMSC at 127.0.0.1:${port} (connection refused).`,
      });
    });

    it('reports an SMSC that hangs up at the bind as transient', async () => {
      smsc.mode = 'hang_up';

      expect(await adapter.send(data, sms())).toEqual({
        outcome: 'transient',
        reason: `The SMSC at 127.0.0.1:${data.port} closed the connection before answering the bind.`,
      });
    });

    it('waits for the bind no longer than the provider timeout, then reports it as transient', async () => {
      smsc.mode = 'silent';

      expect(await impatient.send(data, sms())).toEqual({
        outcome: 'transient',
        reason: `The SMSC at 127.0.0.1:${data.port} did not answer the bind within 200 ms.`,
      });
      expect(smsc.count('submit_sm')).toBe(0);
    });

    it('reports refused credentials as permanent', async () => {
      expect(await adapter.send({ ...data, password: 'wrong' }, sms())).toEqual({
        outcome: 'permanent',
        reason:
          'The SMSC refused the bind with ESME_RINVPASWD: check system_id, password and system_type.',
        cause: 'phone',
      });
    });

    it('reports a bind refused for another reason as transient', async () => {
      smsc.refuseBindWith = errors.ESME_RBINDFAIL;

      expect(await adapter.send(data, sms())).toMatchObject({ outcome: 'transient' });
    });

    it('refuses invalid adapter data and destinations without connecting', async () => {
      expect(await adapter.send({ ...data, port: 'abc' }, sms())).toEqual({
        outcome: 'permanent',
        reason: 'port must be an integer from 1 to 65535.',
        cause: 'phone',
      });
      expect(await adapter.send(data, sms({ destination: '0612345678' }))).toEqual({
        outcome: 'permanent',
        reason: 'The destination 0612345678 is not an international phone number.',
        cause: 'recipient',
      });
      expect(smsc.received).toEqual([]);
    });
  });

  describe('listen', () => {
    const receipt = (text: string, extra: Record<string, unknown> = {}) => ({
      source_addr_ton: 1,
      source_addr_npi: 1,
      source_addr: '33687654321',
      esm_class: 0x04,
      data_coding: 0,
      short_message: text,
      ...extra,
    });

    it('binds at once, keeps the session with enquire_link and unbinds when stopped', async () => {
      const stop = quick.listen(phone, new RecordingSink());
      await smsc.nth('enquire_link');

      await stop();

      expect(smsc.commands).toEqual(['bind_transceiver', 'unbind']);
    });

    it('reports a delivery receipt on the session of the send, and answers it only after the sink', async () => {
      const sink = new RecordingSink();
      sink.hold();
      const stop = adapter.listen(phone, sink);
      const session = await smsc.boundSession();
      expect(await adapter.send(data, sms())).toEqual({ outcome: 'sent', uid: 'msg-1' });

      const answered = smsc.deliver(
        session,
        receipt(
          'id:msg-1 sub:001 dlvrd:001 submit date:2401011200 done date:2401011201 stat:DELIVRD err:000 text:Hello',
        ),
      );
      await sink.calls();
      await smsc.roundTrip(session);

      expect(sink.statuses).toEqual([{ uid: 'msg-1', status: 'delivered' }]);
      expect(smsc.count('deliver_sm_resp')).toBe(0);
      sink.release();
      expect((await answered).command_status).toBe(errors.ESME_ROK);
      expect(smsc.count('bind_transceiver')).toBe(1);
      await stop();
    });

    it.each([
      ['UNDELIV', 'failed'],
      ['EXPIRED', 'failed'],
      ['REJECTD', 'failed'],
      ['DELETED', 'failed'],
      ['ENROUTE', 'unknown'],
      ['ACCEPTD', 'unknown'],
      ['UNKNOWN', 'unknown'],
    ])('reports a receipt with stat:%s as %s', async (stat, status) => {
      const sink = new RecordingSink();
      const stop = adapter.listen(phone, sink);
      const session = await smsc.boundSession();

      await smsc.deliver(session, receipt(`id:42 sub:001 dlvrd:000 stat:${stat} err:001`));

      expect(sink.statuses).toEqual([{ uid: '42', status }]);
      await stop();
    });

    it('prefers the receipted_message_id and message_state TLVs to the text', async () => {
      const sink = new RecordingSink();
      const stop = adapter.listen(phone, sink);
      const session = await smsc.boundSession();

      await smsc.deliver(
        session,
        receipt('id:12345 stat:ENROUTE', { receipted_message_id: '3039', message_state: 2 }),
      );

      expect(sink.statuses).toEqual([{ uid: '3039', status: 'delivered' }]);
      await stop();
    });

    it('acknowledges, without reporting, a receipt without an id and an SME acknowledgement', async () => {
      const sink = new RecordingSink();
      const stop = adapter.listen(phone, sink);
      const session = await smsc.boundSession();

      const withoutId = await smsc.deliver(session, receipt('stat:DELIVRD'));
      const smeAck = await smsc.deliver(session, receipt('id:msg-1', { esm_class: 0x08 }));

      expect([withoutId.command_status, smeAck.command_status]).toEqual([
        errors.ESME_ROK,
        errors.ESME_ROK,
      ]);
      expect(sink.statuses).toEqual([]);
      expect(sink.messages).toEqual([]);
      expect(warnings).toHaveBeenCalledWith(
        `The SMSC at 127.0.0.1:${data.port} sent a delivery receipt without an id.`,
      );
      await stop();
    });

    it('reports an intermediate notification as a receipt', async () => {
      const sink = new RecordingSink();
      const stop = adapter.listen(phone, sink);
      const session = await smsc.boundSession();

      await smsc.deliver(session, receipt('id:msg-1 stat:ENROUTE', { esm_class: 0x20 }));

      expect(sink.statuses).toEqual([{ uid: 'msg-1', status: 'unknown' }]);
      await stop();
    });

    it('reports an inbound UCS-2 message with the E.164 origin of an international source', async () => {
      const sink = new RecordingSink();
      const stop = adapter.listen(phone, sink);
      const session = await smsc.boundSession();

      const answer = await smsc.deliver(session, {
        source_addr_ton: 1,
        source_addr_npi: 1,
        source_addr: '33687654321',
        esm_class: 0,
        data_coding: 8,
        short_message: 'Ça marche ✓',
      });

      expect(answer.command_status).toBe(errors.ESME_ROK);
      expect(sink.messages).toEqual([{ origin: '+33687654321', text: 'Ça marche ✓', at: null }]);
      await stop();
    });

    it('reports an inbound GSM message from a source that is no phone number as given', async () => {
      const sink = new RecordingSink();
      const stop = adapter.listen(phone, sink);
      const session = await smsc.boundSession();

      await smsc.deliver(session, {
        source_addr_ton: 5,
        source_addr: 'BANK',
        esm_class: 0,
        data_coding: 0,
        short_message: 'Code @ 1234',
      });

      expect(sink.messages).toEqual([{ origin: 'BANK', text: 'Code @ 1234', at: null }]);
      await stop();
    });

    it('asks the SMSC to deliver again later (ESME_RX_T_APPN) when the sink fails', async () => {
      const sink = new RecordingSink();
      sink.failures = 1;
      const stop = adapter.listen(phone, sink);
      const session = await smsc.boundSession();

      const answer = await smsc.deliver(session, receipt('id:msg-9 stat:DELIVRD'));

      expect(answer.command_status).toBe(errors.ESME_RX_T_APPN);
      expect(errorLogs).toHaveBeenCalled();
      await stop();
    });

    it('acknowledges a receipt nobody listens for, but not an inbound message', async () => {
      await adapter.send(data, sms());
      const session = await smsc.boundSession();

      const toReceipt = await smsc.deliver(session, receipt('id:msg-1 stat:DELIVRD'));
      const toMessage = await smsc.deliver(session, {
        source_addr_ton: 1,
        source_addr: '33687654321',
        short_message: 'Hi',
      });

      expect(toReceipt.command_status).toBe(errors.ESME_ROK);
      expect(toMessage.command_status).toBe(errors.ESME_RX_T_APPN);
    });

    it('answers the enquire_link and unbind of the SMSC', async () => {
      const stop = adapter.listen(phone, new RecordingSink());
      const session = await smsc.boundSession();

      expect((await smsc.roundTrip(session)).command).toBe('enquire_link_resp');
      const unbound = await new Promise<PDU>((resolve) => session.unbind(resolve));
      expect(unbound.command_status).toBe(errors.ESME_ROK);
      await stop();
    });

    it('binds again after the SMSC drops the session', async () => {
      const sink = new RecordingSink();
      const stop = quick.listen(phone, sink);
      (await smsc.boundSession()).destroy();

      const session = await smsc.boundSession(2);
      await smsc.deliver(session, receipt('id:msg-1 stat:DELIVRD'));

      expect(sink.statuses).toEqual([{ uid: 'msg-1', status: 'delivered' }]);
      await stop();
    });

    it('binds again after the SMSC stops answering enquire_link', async () => {
      smsc.answersEnquireLink = false;
      const stop = quick.listen(phone, new RecordingSink());

      await smsc.nth('bind_transceiver', 2);

      expect(warnings).toHaveBeenCalledWith(
        `The SMSC at 127.0.0.1:${data.port} stopped answering enquire_link.`,
      );
      await stop();
    });

    it('keeps retrying a refused bind without logging the password', async () => {
      const stop = quick.listen(
        { ...phone, data: { ...data, password: 'wrongpw' } },
        new RecordingSink(),
      );

      await smsc.nth('bind_transceiver', 3);

      expect(warnings).toHaveBeenCalled();
      expect(JSON.stringify(warnings.mock.calls)).not.toContain('wrongpw');
      await stop();
    });

    it('keeps the session until the last listener of the same data stops', async () => {
      const stopFirst = adapter.listen(phone, new RecordingSink());
      const stopSecond = adapter.listen({ ...phone, id: 8 }, new RecordingSink());
      await smsc.boundSession();

      await stopFirst();
      expect(await adapter.send(data, sms())).toMatchObject({ outcome: 'sent' });
      await stopSecond();

      expect(smsc.commands).toEqual(['bind_transceiver', 'submit_sm', 'unbind']);
    });

    it('binds a new session for a send after the listener stopped', async () => {
      const stop = adapter.listen(phone, new RecordingSink());
      await smsc.boundSession();
      await stop();

      expect(await adapter.send(data, sms())).toMatchObject({ outcome: 'sent' });
      expect(smsc.count('bind_transceiver')).toBe(2);
    });

    it('does not listen with invalid data', async () => {
      const stop = adapter.listen({ ...phone, data: { ...data, port: '0' } }, new RecordingSink());
      await stop();

      expect(warnings).toHaveBeenCalledWith(
        'Phone 7 cannot receive over SMPP: port must be an integer from 1 to 65535.',
      );
      expect(smsc.received).toEqual([]);
    });
  });

  describe('at wire speed', () => {
    const send = (count: number, extra: Record<string, string> = {}, on = adapter) =>
      Promise.all(
        Array.from({ length: count }, (_, index) =>
          on.send(
            { ...data, ...extra },
            sms({ destination: `+336${String(index).padStart(8, '0')}` }),
          ),
        ),
      );

    it('keeps 10 messages unanswered per session, and sends 100 in the time of 10 answers', async () => {
      smsc.noDelay = true;
      smsc.submitDelayMs = 50;
      const serialMs = 100 * smsc.submitDelayMs;

      const started = performance.now();
      const results = await send(100);
      const elapsed = performance.now() - started;

      expect(results.filter((result) => result.outcome === 'sent')).toHaveLength(100);
      expect(smsc.maxUnanswered).toBe(10);
      expect(elapsed).toBeLessThan(0.4 * serialMs);
      expect(smsc.count('bind_transceiver')).toBe(1);
    });

    it('never has more unanswered than max_pending_submits, and sends the others in order', async () => {
      smsc.submitDelayMs = 30;

      const results = await send(20, { max_pending_submits: '3' });

      expect(results.map((result) => result.outcome)).toEqual(Array(20).fill('sent'));
      expect(smsc.maxUnanswered).toBe(3);
      expect(
        smsc.received
          .filter((pdu) => pdu.command === 'submit_sm')
          .map((pdu) => Number(pdu.destination_addr) - 33600000000),
      ).toEqual(Array.from({ length: 20 }, (_, index) => index));
    });

    it('fails a message still waiting for room at the timeout as never sent', async () => {
      // One message at a time, each answered in 600 ms: the third waits for room longer
      // than the timeout of 1 s, while the second is written in time and answered.
      const patient = new SmppAdapter(...adapterDeps({ PROVIDER_TIMEOUT_MS: '1000' }));
      smsc.submitDelayMs = 600;
      try {
        const results = await send(3, { max_pending_submits: '1' }, patient);

        expect(results).toEqual([
          { outcome: 'sent', uid: 'msg-1' },
          { outcome: 'sent', uid: 'msg-2' },
          {
            outcome: 'transient',
            reason: `The SMSC at 127.0.0.1:${data.port} left no room for the message within 1 s: 1 messages were waiting for its answer (max_pending_submits is 1 per session).`,
          },
        ]);
        expect(smsc.count('submit_sm')).toBe(2);
      } finally {
        await patient.onApplicationShutdown();
      }
    });

    it('fails the messages waiting for room as never sent when it shuts down', async () => {
      smsc.answerSubmit = () => undefined;
      const sent = send(2, { max_pending_submits: '1' });
      await smsc.nth('submit_sm');

      await adapter.onApplicationShutdown();

      expect(await sent).toEqual([
        {
          outcome: 'ambiguous',
          reason: `The SMSC at 127.0.0.1:${data.port} closed the connection before answering the message: whether it took the message is unknown, so it is not sent again.`,
        },
        {
          outcome: 'transient',
          reason: `smsgw closed its connection to the SMSC at 127.0.0.1:${data.port} before the message was handed to it.`,
        },
      ]);
      expect(smsc.count('submit_sm')).toBe(1);
    });

    it('opens as many sessions as binds asks for, and spreads the messages over them', async () => {
      smsc.submitDelayMs = 20;

      const results = await send(30, { binds: '3' });

      expect(results.filter((result) => result.outcome === 'sent')).toHaveLength(30);
      expect(smsc.bound).toHaveLength(3);
      expect(smsc.bound.map((session) => smsc.submitsOn(session))).toEqual([10, 10, 10]);
      expect(smsc.maxUnanswered).toBeLessThanOrEqual(10);
    });

    it('binds a dropped session again while the others keep sending', async () => {
      const threeBinds = { binds: '3' };
      await send(1, threeBinds, quick);
      await waitFor(() => Promise.resolve(smsc.bound.length === 3), 'three sessions');
      smsc.refuseBindWith = errors.ESME_RBINDFAIL;

      smsc.bound[0].destroy();
      await smsc.nth('bind_transceiver', 5);
      const before = smsc.count('submit_sm');
      const meanwhile = await send(20, threeBinds, quick);

      expect(meanwhile.map((result) => result.outcome)).toEqual(Array(20).fill('sent'));
      expect(smsc.count('submit_sm') - before).toBe(20);
      expect(smsc.submitsOn(smsc.bound[1]) + smsc.submitsOn(smsc.bound[2])).toBeGreaterThanOrEqual(
        20,
      );
      expect(warnings).toHaveBeenCalledWith(
        `Session 1 of 3 to the SMSC at 127.0.0.1:${data.port} dropped. Binding session 1 of 3 again in 5 ms.`,
      );

      smsc.refuseBindWith = null;
      await waitFor(() => Promise.resolve(smsc.bound.length === 4), 'the session bound again');
      smsc.submitDelayMs = 20;
      await send(30, threeBinds, quick);

      expect(smsc.submitsOn(smsc.bound[3])).toBeGreaterThan(0);
      expect(logs).toHaveBeenCalledWith(
        `Bound session 1 of 3 to the SMSC at 127.0.0.1:${data.port} again.`,
      );
    });

    it('reports what arrives on any of the sessions, and unbinds them all when stopped', async () => {
      const sink = new RecordingSink();
      const stop = adapter.listen({ ...phone, data: { ...data, binds: '2' } }, sink);
      await waitFor(() => Promise.resolve(smsc.bound.length === 2), 'two sessions');

      for (const [index, session] of smsc.bound.entries()) {
        const answer = await smsc.deliver(session, {
          source_addr_ton: 1,
          source_addr: '33687654321',
          esm_class: 0x04,
          short_message: `id:msg-${index + 1} stat:DELIVRD`,
        });
        expect(answer.command_status).toBe(errors.ESME_ROK);
      }
      await stop();

      expect(sink.statuses).toEqual([
        { uid: 'msg-1', status: 'delivered' },
        { uid: 'msg-2', status: 'delivered' },
      ]);
      expect(smsc.commands).toEqual(['bind_transceiver', 'bind_transceiver', 'unbind', 'unbind']);
    });

    it('writes each message at once (TCP_NODELAY), not after the TCP ACK of the one before', async () => {
      // Nagle's algorithm holds a small segment while one sent is unacknowledged, and the SMSC,
      // with nothing to answer before 50 ms, delays its ACK (40 ms on Linux): the last of a
      // burst of 10 would arrive about 40 ms after the first.
      smsc.noDelay = true;
      smsc.submitDelayMs = 50;
      const spreads: number[] = [];
      for (let burst = 0; burst < 5; burst++) {
        const first = smsc.submitArrivals.length;
        await send(10);
        const arrivals = smsc.submitArrivals.slice(first);
        spreads.push(arrivals[arrivals.length - 1] - arrivals[0]);
      }

      expect(spreads.sort((a, b) => a - b)[2]).toBeLessThan(15);
    });
  });

  describe('outbound policy', () => {
    let everywhere: FakeSmsc;
    let port: string;

    // An SMSC on every local address: 0.0.0.0 and [::] would reach it if they were not refused.
    beforeEach(async () => {
      everywhere = new FakeSmsc();
      port = String(await everywhere.start('::'));
    });
    afterEach(() => everywhere.stop());

    const at = (host: string) => ({ ...data, host, port });
    const refusal = (address: string, range: string) => ({
      field: 'host',
      reason: `the address ${address} is refused by the server's outbound policy (${range}); an operator can allow it with OUTBOUND_ALLOW.`,
    });

    it.each([
      ['0.0.0.0', '0.0.0.0'],
      ['[::]', '::'],
      ['::', '::'],
      ['0', '0.0.0.0'],
    ])('refuses the host field %p, where an SMSC answers', async (host, address) => {
      expect(await adapter.test(at(host))).toEqual(refusal(address, 'unspecified'));
      expect(everywhere.sessions).toEqual([]);
    });

    it('refuses 169.254.169.254 at once, however long the provider timeout', async () => {
      const patient = new SmppAdapter(...adapterDeps({ PROVIDER_TIMEOUT_MS: '600000' }));

      expect(await patient.test({ ...data, host: '169.254.169.254', port: '2775' })).toEqual(
        refusal('169.254.169.254', 'link-local'),
      );
    });

    it('fails a send to a refused host for good, saying why, connecting nowhere', async () => {
      expect(await adapter.send(at('0.0.0.0'), sms())).toEqual({
        outcome: 'permanent',
        reason: `smsgw does not connect to the SMSC at 0.0.0.0:${port}: the address 0.0.0.0 is refused by the server's outbound policy (unspecified); an operator can allow it with OUTBOUND_ALLOW.`,
        cause: 'phone',
      });
      expect(await adapter.checkStatus(at('0.0.0.0'))).toBe('unavailable');
      expect(everywhere.sessions).toEqual([]);
    });

    const policyWarnings = () =>
      warnings.mock.calls.filter(([message]) => String(message).includes('outbound policy')).length;

    it('keeps a listener of a refused host unconnected, saying why', async () => {
      const stop = quick.listen({ ...phone, data: at('0.0.0.0') }, new RecordingSink());
      await waitFor(() => Promise.resolve(policyWarnings() >= 2), 'two refused binds');
      await stop();

      expect(everywhere.sessions).toEqual([]);
    });

    describe('with OUTBOUND_BLOCK_PRIVATE=true', () => {
      const closed = new SmppAdapter(...adapterDeps({ OUTBOUND_BLOCK_PRIVATE: 'true' }));
      afterEach(() => closed.onApplicationShutdown());

      it('refuses 127.0.0.1 in any notation, and localhost', async () => {
        expect(await closed.test(at('127.0.0.1'))).toEqual(refusal('127.0.0.1', 'loopback'));
        expect(await closed.test(at('0x7f.1'))).toEqual(refusal('127.0.0.1', 'loopback'));
        expect(await closed.test(at('2130706433'))).toEqual(refusal('127.0.0.1', 'loopback'));
        expect(await closed.test(at('localhost'))).toEqual({
          field: 'host',
          reason:
            "the host localhost resolves to an address refused by the server's outbound policy (loopback); an operator can allow it with OUTBOUND_ALLOW.",
        });
        expect(await closed.send(at('127.0.0.1'), sms())).toMatchObject({
          outcome: 'permanent',
          cause: 'phone',
        });
        expect(everywhere.sessions).toEqual([]);
      });

      it.each(['127.0.0.1', 'localhost', '127.0.0.0/8'])(
        'binds to 127.0.0.1 and localhost when OUTBOUND_ALLOW=%s lists them',
        async (allow) => {
          const allowing = new SmppAdapter(
            ...adapterDeps({ OUTBOUND_BLOCK_PRIVATE: 'true', OUTBOUND_ALLOW: allow }),
          );
          const host = allow === 'localhost' ? 'localhost' : '127.0.0.1';
          try {
            expect(await allowing.test(at(host))).toBeNull();
            expect(await allowing.send(at(host), sms())).toMatchObject({ outcome: 'sent' });
          } finally {
            await allowing.onApplicationShutdown();
          }
          expect(everywhere.count('bind_transceiver')).toBe(2);
        },
      );
    });

    it("fails a send for good when the SMSC's name now resolves to a refused address", async () => {
      // Resolved twice: at the phone's test, then at the send's bind (DNS rebinding).
      const answers = [['127.0.0.1'], ['0.0.0.0']];
      const rebinding = new SmppAdapter(
        ...adapterDeps({}, (host) =>
          Promise.resolve(
            (host === 'smsc.example.org' ? (answers.shift() ?? []) : []).map((address) => ({
              address,
              family: 4,
            })),
          ),
        ),
      );
      try {
        expect(await rebinding.test(at('smsc.example.org'))).toBeNull();
        expect(await rebinding.send(at('smsc.example.org'), sms())).toEqual({
          outcome: 'permanent',
          reason: `smsgw does not connect to the SMSC at smsc.example.org:${port}: the host smsc.example.org resolves to an address refused by the server's outbound policy (unspecified); an operator can allow it with OUTBOUND_ALLOW.`,
          cause: 'phone',
        });
      } finally {
        await rebinding.onApplicationShutdown();
      }
      expect(everywhere.count('bind_transceiver')).toBe(1);
    });
  });
});
