import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { nowUtc } from '../common/time/datetime';
import { chunks, marks, rowMarks } from '../database/driver/placeholders';
import { ImportCounts } from './contacts-import';
import { ContactFields } from './contacts.params';
import { Contact } from './entities/contact.entity';
import { isNameKeyTaken } from '../database/name-key';

/**
 * Lines of an import written by one statement: one lookup of the existing names and one INSERT,
 * few enough that the parameters stay far below the engines' limits.
 */
const LINES_PER_STATEMENT = 500;

/** Contacts. Every query is scoped by the owner's id. */
@Injectable()
export class ContactsRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Contact) private readonly contacts: Repository<Contact>,
  ) {}

  findOwned(userId: number, contactId: number): Promise<Contact | null> {
    return this.contacts.findOneBy({ id: contactId, id_user: userId });
  }

  /** Whether another contact of the user has this name key. Served by the unique `(id_user, name_key)`. */
  isNameTaken(userId: number, key: string, exceptContactId?: number): Promise<boolean> {
    return isNameKeyTaken(this.contacts, userId, key, exceptContactId);
  }

  async create(userId: number, fields: ContactFields): Promise<number> {
    const result = await this.contacts.insert({
      id_user: userId,
      ...row(fields),
      created_at: nowUtc(),
      updated_at: null,
    });
    return Number(result.identifiers[0].id);
  }

  /** False when the contact is no longer the user's. */
  async update(
    userId: number,
    contactId: number,
    changes: Partial<ContactFields>,
  ): Promise<boolean> {
    const { nameKey, ...rest } = changes;
    const result = await this.contacts.update(
      { id: contactId, id_user: userId },
      { ...rest, ...(nameKey === undefined ? {} : { name_key: nameKey }), updated_at: nowUtc() },
    );
    return Boolean(result.affected);
  }

  /**
   * Deletes a contact of the user. The schema's foreign keys take it out of its groups and of
   * the scheduled messages that name it (`ON DELETE CASCADE` on both engines).
   */
  async deleteOwned(userId: number, contactId: number): Promise<boolean> {
    const result = await this.contacts.delete({ id: contactId, id_user: userId });
    return Boolean(result.affected);
  }

  /**
   * Writes a chunk of an import in a transaction of its own: an import is written as a run of
   * short ones, so that on SQLite, whose one connection a transaction holds, other requests get
   * their turn between two chunks.
   */
  writeImportChunk(userId: number, lines: readonly ContactFields[]): Promise<ImportCounts> {
    return this.dataSource.transaction(async (manager) => {
      const counts: ImportCounts = { created: 0, updated: 0 };
      for (const statement of chunks(lines, LINES_PER_STATEMENT)) {
        const { created, updated } = await this.writeLines(manager, userId, statement);
        counts.created += created;
        counts.updated += updated;
      }
      return counts;
    });
  }

  /**
   * Updates the user's contacts whose name key is a line's, creates the others, in one statement
   * that the unique `(id_user, name_key)` index turns into an update where the name is taken:
   * one round trip per statement's lines rather than one per updated contact. A lookup through
   * the same index first tells which lines update, for the counts. A contact another request
   * creates meanwhile under one of the names is updated, never refused.
   */
  private async writeLines(
    manager: EntityManager,
    userId: number,
    lines: readonly ContactFields[],
  ): Promise<ImportCounts> {
    const existing = await manager.query<Array<{ name_key: string }>>(
      `SELECT name_key FROM contact WHERE id_user = ? AND name_key IN (${marks(lines.length)})`,
      [userId, ...lines.map((line) => line.nameKey)],
    );
    const now = nowUtc();
    // An updated contact keeps its created_at; its updated_at is the import's time.
    const onTaken =
      this.dataSource.options.type === 'mysql'
        ? 'ON DUPLICATE KEY UPDATE name = VALUES(name), number = VALUES(number), ' +
          'data = VALUES(data), updated_at = VALUES(created_at)'
        : 'ON CONFLICT (id_user, name_key) DO UPDATE SET name = excluded.name, ' +
          'number = excluded.number, data = excluded.data, updated_at = excluded.created_at';
    await manager.query(
      'INSERT INTO contact (id_user, name, name_key, number, data, created_at, updated_at) ' +
        `VALUES ${rowMarks(lines.length, 7)} ${onTaken}`,
      lines.flatMap((line) => [userId, line.name, line.nameKey, line.number, line.data, now, null]),
    );
    return { created: lines.length - existing.length, updated: existing.length };
  }
}

function row(fields: ContactFields): Pick<Contact, 'name' | 'name_key' | 'number' | 'data'> {
  return { name: fields.name, name_key: fields.nameKey, number: fields.number, data: fields.data };
}
