import { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { chunks } from './driver/placeholders';

/** Ids per `IN (…)`: far below the engines' limits on bound parameters (SQLite's 32,766). */
const IDS_PER_QUERY = 1_000;

/**
 * Which of `ids` are not rows of `entity` owned by `userId`, in the order given: another user's
 * ids and ids that do not exist look the same. Run in the caller's transaction (`manager`) when
 * the ids are then linked: on MySQL the rows found are share-locked until it ends (a plain read
 * sees the transaction's snapshot, where a row deleted meanwhile still exists, and the link
 * written next would fail its foreign key), so a concurrent delete waits for it; SQLite runs
 * one transaction at a time.
 */
export async function idsNotOwned(
  manager: EntityManager,
  entity: EntityTarget<ObjectLiteral>,
  userId: number,
  ids: readonly number[],
): Promise<number[]> {
  const mysql = manager.connection.options.type === 'mysql';
  const owned = new Set<number>();
  for (const chunk of chunks(ids, IDS_PER_QUERY)) {
    const [sql, parameters] = manager
      .createQueryBuilder()
      .select('t.id', 'id')
      .from(entity, 't')
      .where('t.id_user = :userId', { userId })
      .andWhere('t.id IN (:...ids)', { ids: chunk })
      .getQueryAndParameters();
    // TypeORM's pessimistic_read writes FOR SHARE for a MySQL server of version 8 or more, which
    // MariaDB's version numbers pass but its syntax lacks.
    const rows = await manager.query<Array<{ id: number | string }>>(
      mysql ? `${sql} LOCK IN SHARE MODE` : sql,
      parameters,
    );
    rows.forEach((row) => owned.add(Number(row.id)));
  }
  return ids.filter((id) => !owned.has(id));
}
