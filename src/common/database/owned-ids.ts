import { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

/** Ids per `IN (…)`: far below the engines' limits on bound parameters (SQLite's 32,766). */
const IDS_PER_QUERY = 1_000;

/**
 * Which of `ids` are not rows of `entity` owned by `userId`, in the order given: another user's
 * ids and ids that do not exist look the same. Run in the caller's transaction (`manager`) when
 * the ids are then linked, so that a concurrent delete cannot slip between.
 */
export async function idsNotOwned(
  manager: EntityManager,
  entity: EntityTarget<ObjectLiteral>,
  userId: number,
  ids: readonly number[],
): Promise<number[]> {
  const owned = new Set<number>();
  for (let start = 0; start < ids.length; start += IDS_PER_QUERY) {
    const rows = await manager
      .createQueryBuilder()
      .select('t.id', 'id')
      .from(entity, 't')
      .where('t.id_user = :userId', { userId })
      .andWhere('t.id IN (:...ids)', { ids: ids.slice(start, start + IDS_PER_QUERY) })
      .getRawMany<{ id: number | string }>();
    rows.forEach((row) => owned.add(Number(row.id)));
  }
  return ids.filter((id) => !owned.has(id));
}
