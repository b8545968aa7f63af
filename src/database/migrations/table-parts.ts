import { TableColumnOptions, TableForeignKeyOptions } from 'typeorm';

/*
 * Column and key shapes that several migrations create. Migrations already applied to users'
 * databases are replayed from these on every fresh install, so none of them may change: a new
 * shape is a new function.
 */

export const idColumn = (): TableColumnOptions => ({
  name: 'id',
  type: 'integer',
  isPrimary: true,
  isGenerated: true,
  generationStrategy: 'increment',
});

export const timestampColumns = (): TableColumnOptions[] => [
  { name: 'created_at', type: 'datetime', default: 'CURRENT_TIMESTAMP' },
  { name: 'updated_at', type: 'datetime', isNullable: true },
];

export const foreignKey = (
  column: string,
  table: string,
  onDelete: 'CASCADE' | 'SET NULL' = 'CASCADE',
): TableForeignKeyOptions => ({
  columnNames: [column],
  referencedTableName: table,
  referencedColumnNames: ['id'],
  onDelete,
});
