import { ObjectLiteral, Repository } from 'typeorm';

/**
 * Whether another of the user's rows of `repository` has the name key `key`: what the unique
 * `(id_user, name_key)` index of contacts, groups, conditional groups and phone groups holds
 * (docs/api.md#managing-contacts-groups-and-more), read through that index.
 */
export async function isNameKeyTaken(
  repository: Repository<ObjectLiteral>,
  userId: number,
  key: string,
  exceptId?: number,
): Promise<boolean> {
  const query = repository
    .createQueryBuilder('e')
    .select('e.id', 'id')
    .where('e.id_user = :userId', { userId })
    .andWhere('e.name_key = :key', { key });
  if (exceptId !== undefined) {
    query.andWhere('e.id <> :exceptId', { exceptId });
  }
  return (await query.limit(1).getRawOne()) !== undefined;
}
