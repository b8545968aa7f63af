import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { nowUtc } from '../common/time/datetime';
import { Received } from '../messages/entities/received.entity';
import { Sended, SendedStatus } from '../messages/entities/sended.entity';
import { addStop } from '../messages/sms-stop';
import { Phone } from '../phones/entities/phone.entity';
import { NewScheduled, ScheduledRepository } from '../scheduled/scheduled.repository';
import { Setting } from '../users/entities/setting.entity';

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
   * in one statement: of two receipts racing, the database applies each only if it is still
   * allowed when it runs. Returns how many messages changed.
   */
  async updateStatus(
    userId: number,
    adapter: string,
    uid: string,
    status: SendedStatus,
    from: readonly SendedStatus[],
  ): Promise<number> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(Sended)
      .set({ status, updated_at: nowUtc() })
      .where('id_user = :userId AND adapter = :adapter AND uid = :uid', { userId, adapter, uid })
      .andWhere('status IN (:...from)', { from })
      .execute();
    return result.affected ?? 0;
  }

  findOwnPhone(userId: number, phoneId: number): Promise<InboundPhone | null> {
    return this.phones.findOne({
      select: { id: true, id_user: true, adapter: true, adapter_data: true },
      where: { id: phoneId, id_user: userId },
    });
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
      await manager
        .createQueryBuilder()
        .insert()
        .into(Received)
        .values(
          message.chunks.map((text) => ({
            id_user: message.userId,
            id_phone: message.phoneId,
            at: message.at,
            text,
            origin: message.origin,
            command: 0,
            status: 'unread' as const,
            mms: 0,
            created_at: now,
            updated_at: null,
          })),
        )
        .execute();
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
