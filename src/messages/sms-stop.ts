import { EntityManager } from 'typeorm';
import { SmsStop } from '../stop-list/entities/sms-stop.entity';

/**
 * Puts a number on a user's STOP list unless it is there already; whether this call added it.
 * Both who write the list (a STOP reply, POST /api/stop/) go through here: the unique
 * `(id_user, number)` index makes a concurrent duplicate an ignored insert, never an error.
 * Runs in the caller's transaction, whose query runner reports the inserted rows.
 */
export async function addStop(
  manager: EntityManager,
  userId: number,
  number: string,
  now: string,
): Promise<boolean> {
  const [sql, parameters] = manager
    .createQueryBuilder()
    .insert()
    .into(SmsStop)
    .values({ id_user: userId, number, created_at: now })
    .orIgnore()
    .getQueryAndParameters();
  // The driver's own count of inserted rows: an ignored duplicate is 0 on both engines.
  const inserted = await manager.queryRunner!.query(sql, parameters, true);
  return (inserted.affected ?? 0) > 0;
}
