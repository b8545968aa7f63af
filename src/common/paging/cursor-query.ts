import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Cursor, PAGE_SIZE } from './cursor';

/**
 * Restricts a query to the ids of one page under `cursor`, on `alias.id`: ascending from an
 * offset or after an id, descending before an id (the caller puts the page back in ascending
 * order). Scoped to the user by the caller, so that the `(id_user, id)` index serves it.
 */
export function applyCursor<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  alias: string,
  cursor: Cursor,
): SelectQueryBuilder<T> {
  switch (cursor.mode) {
    case 'page':
      query.orderBy(`${alias}.id`, 'ASC').offset(cursor.page * PAGE_SIZE);
      break;
    case 'after':
      query
        .andWhere(`${alias}.id > :cursorId`, { cursorId: cursor.id })
        .orderBy(`${alias}.id`, 'ASC');
      break;
    case 'before':
      query
        .andWhere(`${alias}.id < :cursorId`, { cursorId: cursor.id })
        .orderBy(`${alias}.id`, 'DESC');
      break;
  }
  return query.limit(PAGE_SIZE);
}
