import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { nowUtc } from '../common/time/datetime';
import { marks } from '../database/driver/placeholders';
import { WebhookDelivery } from '../events/entities/webhook-delivery.entity';
import { Webhook } from './entities/webhook.entity';
import { runOn } from '../database/driver/runner';
import { failPendingDeliveries, newEventId, queueDelivery } from '../events/webhook-events';

export type WebhookRow = Pick<Webhook, 'url' | 'type' | 'format' | 'secret' | 'enabled'>;

/** An attempt of a delivery, with the number of attempts its delivery has in all. */
export interface AttemptRow {
  id: number;
  id_delivery: number;
  started_at: string;
  duration_ms: number;
  http_status: number | null;
  answer: string | null;
  error: string | null;
  total: number;
}

/** The users' webhooks; every query scoped by the user. */
@Injectable()
export class WebhooksRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Webhook) private readonly webhooks: Repository<Webhook>,
  ) {}

  list(userId: number): Promise<Webhook[]> {
    return this.webhooks.find({ where: { id_user: userId }, order: { id: 'ASC' } });
  }

  findOwned(userId: number, id: number): Promise<Webhook | null> {
    return this.webhooks.findOneBy({ id, id_user: userId });
  }

  /**
   * Inserts the webhook unless the user has `max` already; its id, or null. The count and the
   * insert share a transaction that first locks the user's row, so that concurrent creations
   * take turns and cannot both pass the count.
   */
  create(userId: number, webhook: WebhookRow, max: number): Promise<number | null> {
    return this.dataSource.transaction(async (manager) => {
      if (this.dataSource.options.type === 'mysql') {
        await manager.query('SELECT id FROM `user` WHERE id = ? FOR UPDATE', [userId]);
      }
      if ((await manager.countBy(Webhook, { id_user: userId })) >= max) {
        return null;
      }
      const saved = await manager.save(
        Object.assign(new Webhook(), webhook, { id_user: userId, created_at: nowUtc() }),
      );
      return saved.id;
    });
  }

  /**
   * Changes the user's webhook `id`; false when it is not theirs (or no longer exists).
   * Disabling it fails its pending deliveries in the same transaction: none is attempted after.
   */
  update(userId: number, id: number, changes: Partial<WebhookRow>): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const result = await manager.update(
        Webhook,
        { id, id_user: userId },
        { ...changes, updated_at: nowUtc() },
      );
      if ((result.affected ?? 0) === 0) {
        return false;
      }
      if (changes.enabled === 0) {
        await runOn(manager, failPendingDeliveries(id, 'The webhook was disabled by its user.'));
      }
      return true;
    });
  }

  async delete(userId: number, id: number): Promise<boolean> {
    const result = await this.webhooks.delete({ id, id_user: userId });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Queues a `ping` for the user's webhook `id` unless it is disabled (false) or not theirs
   * (null); the delivery's id.
   */
  ping(userId: number, id: number): Promise<number | false | null> {
    return this.dataSource.transaction(async (manager) => {
      const webhook = await manager.findOneBy(Webhook, { id, id_user: userId });
      if (!webhook) {
        return null;
      }
      if (Number(webhook.enabled) === 0) {
        return false;
      }
      const at = new Date();
      return runOn(
        manager,
        queueDelivery(userId, id, { id: newEventId(at), type: 'ping', at, payload: {} }),
      );
    });
  }

  /**
   * Queues the user's failed delivery `deliveryId` of webhook `webhookId` again, due now: the
   * delivery as it was (null when it is not theirs), and whether it was queued (only a failed
   * one of an enabled webhook is). Its row is held meanwhile, so that two retries queue it once.
   */
  retry(
    userId: number,
    webhookId: number,
    deliveryId: number,
  ): Promise<{ status: string; enabled: boolean } | null> {
    return this.dataSource.transaction(async (manager) => {
      const lock = this.dataSource.options.type === 'mysql' ? ' FOR UPDATE' : '';
      const [row] = await manager.query<Array<{ status: string; enabled: number }>>(
        'SELECT d.status, w.enabled FROM webhook_delivery d JOIN webhook w ON w.id = d.id_webhook ' +
          `WHERE d.id = ? AND d.id_webhook = ? AND d.id_user = ? AND w.id_user = ?${lock}`,
        [deliveryId, webhookId, userId, userId],
      );
      if (!row) {
        return null;
      }
      const found = { status: row.status, enabled: Number(row.enabled) !== 0 };
      if (found.status === 'failed' && found.enabled) {
        const now = nowUtc();
        await manager.update(
          WebhookDelivery,
          { id: deliveryId, status: 'failed' },
          { status: 'pending', next_attempt_at: now, updated_at: now },
        );
      }
      return found;
    });
  }

  /** Page `page` of a webhook's deliveries, newest first, and one more to tell a next page. */
  deliveries(webhookId: number, page: number, size: number): Promise<WebhookDelivery[]> {
    return this.dataSource.getRepository(WebhookDelivery).find({
      where: { id_webhook: webhookId },
      order: { id: 'DESC' },
      skip: page * size,
      take: size + 1,
    });
  }

  /**
   * The latest `limit` attempts of each of the deliveries `ids`, newest first, each with its
   * delivery's count: one statement for a page of the log, by (id_delivery, id).
   */
  attempts(ids: readonly number[], limit: number): Promise<AttemptRow[]> {
    if (ids.length === 0) {
      return Promise.resolve([]);
    }
    return this.dataSource.query<AttemptRow[]>(
      'SELECT id, id_delivery, started_at, duration_ms, http_status, answer, error, total FROM (' +
        'SELECT id, id_delivery, started_at, duration_ms, http_status, answer, error, ' +
        'ROW_NUMBER() OVER (PARTITION BY id_delivery ORDER BY id DESC) AS position, ' +
        'COUNT(*) OVER (PARTITION BY id_delivery) AS total ' +
        `FROM webhook_attempt WHERE id_delivery IN (${marks(ids.length)})` +
        ') latest WHERE position <= ? ORDER BY id_delivery, id DESC',
      [...ids, limit],
    );
  }
}
