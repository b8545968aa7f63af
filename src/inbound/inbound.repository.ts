import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { marks, rowMarks } from '../database/driver/placeholders';
import { select, Sql, write } from '../database/driver/sql';
import { runOn } from '../database/driver/runner';
import { nowUtc, utcDate, utcToZone } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { queueEvents } from '../events/webhook-events';
import { Sended, SendedStatus } from '../sended/entities/sended.entity';
import { addStop } from '../messages/sms-stop';
import { Phone } from '../phones/entities/phone.entity';
import { NewScheduled } from '../scheduled/scheduled-message';
import { ScheduledRepository } from '../scheduled/scheduled.repository';
import { countAll, CountKind, countMessages } from '../messages/message-counts';
import { Setting } from '../users/entities/setting.entity';
import { User } from '../users/entities/user.entity';

/** A sent message a receipt names, with the phone that sent it (null once deleted). */
export interface ReceiptTarget {
  status: SendedStatus;
  phone: InboundPhone | null;
}

export type InboundPhone = Pick<Phone, 'id' | 'id_user' | 'adapter' | 'adapter_data'>;

/** An inbound message as stored: one `received` row per chunk of its text. */
export interface NewReceived {
  userId: number;
  phoneId: number;
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  at: string;
  origin: string;
  chunks: string[];
  /** Set when the message is a STOP: the reply to schedule if the number is newly stopped. */
  stop: { reply: NewScheduled | null } | null;
}

/** What storing an inbound message did beyond its rows. */
export interface StoredReceived {
  stopAdded: boolean;
  replyId: number | null;
}

/**
 * The SQL of receipts, received messages and the STOP list. Every query is scoped by the
 * owner's id.
 */
@Injectable()
export class InboundRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly scheduled: ScheduledRepository,
    private readonly config: AppConfig,
    @InjectRepository(Phone) private readonly phones: Repository<Phone>,
    @InjectRepository(Setting) private readonly settings: Repository<Setting>,
  ) {}

  /** The user's first message sent through `adapter` under the provider's `uid`, if any. */
  async findReceiptTarget(
    userId: number,
    adapter: string,
    uid: string,
  ): Promise<ReceiptTarget | null> {
    const row = await this.dataSource
      .createQueryBuilder()
      .select('s.status', 'status')
      .addSelect('p.id', 'phone_id')
      .addSelect('p.id_user', 'phone_user')
      .addSelect('p.adapter', 'phone_adapter')
      .addSelect('p.adapter_data', 'adapter_data')
      .from(Sended, 's')
      .leftJoin(Phone, 'p', 'p.id = s.id_phone')
      .where('s.id_user = :userId AND s.adapter = :adapter AND s.uid = :uid', {
        userId,
        adapter,
        uid,
      })
      .orderBy('s.id', 'ASC')
      .limit(1)
      .getRawOne<{
        status: SendedStatus;
        phone_id: number | null;
        phone_user: number;
        phone_adapter: string;
        adapter_data: string | null;
      }>();
    if (!row) {
      return null;
    }
    return {
      status: row.status,
      phone:
        row.phone_id === null
          ? null
          : {
              id: Number(row.phone_id),
              id_user: Number(row.phone_user),
              adapter: row.phone_adapter,
              adapter_data: row.adapter_data,
            },
    };
  }

  /**
   * Sets the status of the user's messages under `uid` that are in one of the statuses `from`,
   * and queues a `send_sms_status_change` event for each, in one transaction: of two receipts
   * racing, the second waits for the first's row locks (MySQL) or its write lock (SQLite), then
   * sees what it changed. Returns how many messages changed.
   */
  async updateStatus(
    userId: number,
    adapter: string,
    uid: string,
    status: SendedStatus,
    from: readonly SendedStatus[],
  ): Promise<number> {
    const mysql = this.dataSource.options.type === 'mysql';
    return this.dataSource.transaction((manager) =>
      runOn(manager, changeStatus(userId, adapter, uid, status, from, mysql)),
    );
  }

  findOwnPhone(userId: number, phoneId: number): Promise<InboundPhone | null> {
    return this.phones.findOne({
      select: { id: true, id_user: true, adapter: true, adapter_data: true },
      where: { id: phoneId, id_user: userId },
    });
  }

  /** The phone whose callback token is `token`, if its user is active. */
  async findPhoneByToken(token: string): Promise<InboundPhone | null> {
    const row = await this.phones
      .createQueryBuilder('p')
      .select(['p.id', 'p.id_user', 'p.adapter', 'p.adapter_data'])
      .innerJoin(User, 'u', "u.id = p.id_user AND u.status = 'active'")
      .where('p.callback_token = :token', { token })
      .getOne();
    return row ?? null;
  }

  /** The user's stored settings (without the defaults). */
  async settingsOf(userId: number): Promise<Record<string, string>> {
    const rows = await this.settings.find({
      select: { name: true, value: true },
      where: { id_user: userId },
    });
    return Object.fromEntries(rows.map((row) => [row.name, row.value]));
  }

  /**
   * Stores an inbound message and, for a STOP, the number on the user's STOP list and the reply,
   * in one transaction. The reply is scheduled only by the request that added the number: the
   * unique `(id_user, number)` makes a concurrent duplicate STOP add nothing and reply nothing.
   */
  async storeReceived(message: NewReceived): Promise<StoredReceived> {
    return this.dataSource.transaction(async (manager) => {
      const now = nowUtc();
      await runOn(
        manager,
        insertReceived(
          message,
          now,
          this.config.timeZone,
          this.dataSource.options.type === 'mysql',
        ),
      );
      if (!message.stop) {
        return { stopAdded: false, replyId: null };
      }
      const stopAdded = await addStop(manager, message.userId, message.origin, now);
      const replyId =
        stopAdded && message.stop.reply
          ? await this.scheduled.insert(manager, message.stop.reply)
          : null;
      return { stopAdded, replyId };
    });
  }
}

/** The `received` rows of a message, one per chunk, their counters and `receive_sms` events. */
function* insertReceived(
  message: NewReceived,
  now: string,
  timeZone: string,
  mysql: boolean,
): Sql<void> {
  const { firstId } = yield* write(
    'INSERT INTO received (id_user, id_phone, at, text, origin, command, status, mms, ' +
      `created_at) VALUES ${rowMarks(message.chunks.length, 9)}`,
    message.chunks.flatMap((text) => [
      message.userId,
      message.phoneId,
      message.at,
      text,
      message.origin,
      0,
      'unread',
      0,
      now,
    ]),
  );
  yield* countAll(
    mysql,
    message.chunks.map(() => ({
      id_user: message.userId,
      id_phone: message.phoneId,
      at: message.at,
      kind: 'received' as const,
    })),
    1,
  );
  yield* queueEvents(
    message.chunks.map((text, index) => ({
      userId: message.userId,
      type: 'receive_sms',
      at: utcDate(message.at),
      payload: () => ({
        id: firstId + index,
        at: utcToZone(message.at, timeZone),
        text,
        origin: message.origin,
        destination: message.phoneId,
        id_phone: message.phoneId,
        mms: false,
        medias: [],
      }),
    })),
  );
}

/** updateStatus's transaction, with the counters of the old and new statuses. */
function* changeStatus(
  userId: number,
  adapter: string,
  uid: string,
  status: SendedStatus,
  from: readonly SendedStatus[],
  mysql: boolean,
): Sql<number> {
  const rows = yield* select<{
    id: number;
    status: string;
    destination: string;
    id_phone: number | null;
    at: string;
  }>(
    'SELECT id, status, destination, id_phone, at FROM sended WHERE id_user = ? AND adapter = ? ' +
      `AND uid = ? AND status IN (${marks(from.length)}) ORDER BY id` +
      (mysql ? ' FOR UPDATE' : ''),
    [userId, adapter, uid, ...from],
  );
  if (rows.length === 0) {
    return 0;
  }
  const now = nowUtc();
  yield* write(`UPDATE sended SET status = ?, updated_at = ? WHERE id IN (${marks(rows.length)})`, [
    status,
    now,
    ...rows.map((row) => row.id),
  ]);
  yield* countMessages(
    mysql,
    rows.flatMap((row) => {
      const message = { id_user: userId, id_phone: row.id_phone, at: row.at };
      return [
        { message: { ...message, kind: row.status as CountKind }, sign: -1 as const },
        { message: { ...message, kind: status }, sign: 1 as const },
      ];
    }),
  );
  yield* queueEvents(
    rows.map((row) => ({
      userId,
      type: 'send_sms_status_change',
      at: utcDate(now),
      payload: () => ({
        id: Number(row.id),
        status,
        previous_status: row.status,
        destination: row.destination,
        id_phone: row.id_phone === null ? null : Number(row.id_phone),
        uid,
      }),
    })),
  );
  return rows.length;
}
