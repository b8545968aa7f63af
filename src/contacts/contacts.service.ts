import { Injectable, Logger } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { AuthenticatedUser } from '../common/http/request';
import { nameTaken } from '../common/params/entry-name';
import { countryOf } from '../common/phone/phone-number';
import { AppConfig } from '../config/configuration';
import { EntriesService } from '../entries/entries.service';
import { Row } from '../entries/entries.repository';
import {
  ContactImport,
  importContactsCsv,
  importContactsList,
  ImportCounts,
} from './contacts-import';
import { ImportSpool } from './import-spool';
import {
  ContactFields,
  ContactIdInput,
  CreateContactInput,
  ImportContactsInput,
  UpdateContactInput,
} from './contacts.params';
import { ContactsRepository } from './contacts.repository';

/**
 * post_contact, get_contact, post_update_contact, delete_contact and post_import_contacts
 * (docs/api.md#post_contact and the four after it).
 */
@Injectable()
export class ContactsService {
  private readonly logger = new Logger(ContactsService.name);

  constructor(
    private readonly contacts: ContactsRepository,
    private readonly entries: EntriesService,
    private readonly config: AppConfig,
  ) {}

  /** post_contact: the new contact's id. Rules 1 to 4 were checked at the edge. */
  async create(user: AuthenticatedUser, input: CreateContactInput): Promise<number> {
    // Rule 5.
    if (await this.contacts.isNameTaken(user.id, input.nameKey)) {
      throw nameTaken(input.name, 'contact');
    }
    try {
      return await this.contacts.create(user.id, input);
    } catch (error) {
      // A name taken by a concurrent request is told as rule 5 tells it.
      if (await this.contacts.isNameTaken(user.id, input.nameKey)) {
        throw nameTaken(input.name, 'contact');
      }
      throw error;
    }
  }

  /** get_contact: the contact as get_entries lists it. */
  async read(user: AuthenticatedUser, { id }: ContactIdInput): Promise<Row> {
    const contact = await this.entries.findOne(user.id, 'contact', id);
    if (!contact) {
      throw noContact(ErrorCode.INVALID_PARAMETER, id);
    }
    return contact;
  }

  /** post_update_contact: the contact as it now is. */
  async update(user: AuthenticatedUser, input: UpdateContactInput): Promise<Row> {
    // Rule 1.
    const contact = await this.contacts.findOwned(user.id, input.id);
    if (!contact) {
      throw noContact(ErrorCode.CANNOT_UPDATE, input.id);
    }
    // Rule 2.
    const changes = input.changes.get();
    // Rule 3.
    const { name, nameKey } = changes;
    const taken = () =>
      nameKey !== undefined && this.contacts.isNameTaken(user.id, nameKey, contact.id);
    if (name !== undefined && (await taken())) {
      throw nameTaken(name, 'contact');
    }
    // Rule 4.
    let updated: boolean;
    try {
      updated = await this.contacts.update(user.id, contact.id, changes);
    } catch (error) {
      if (name !== undefined && (await taken())) {
        throw nameTaken(name, 'contact');
      }
      throw error;
    }
    const entry = updated ? await this.entries.findOne(user.id, 'contact', contact.id) : undefined;
    if (!entry) {
      throw noContact(ErrorCode.CANNOT_UPDATE, input.id);
    }
    return entry;
  }

  /** delete_contact: out of its groups and pending scheduled messages with it. */
  async delete(user: AuthenticatedUser, { id }: ContactIdInput): Promise<true> {
    if (!(await this.contacts.deleteOwned(user.id, id))) {
      throw noContact(ErrorCode.CANNOT_DELETE, id);
    }
    return true;
  }

  /**
   * post_import_contacts: the whole import is checked (rules 2 to 4) before its first line is
   * written, then written chunk by chunk, each chunk its own transaction (rule 5), so that
   * neither engine holds one transaction for the whole file. A file's checked lines wait on disk
   * (ImportSpool), a list's in memory, which the request's body limit bounds. Rule 1 was checked
   * at the edge.
   */
  async import(user: AuthenticatedUser, input: ImportContactsInput): Promise<ImportCounts> {
    const country = countryOf(user);
    const maxRows = this.config.limits.csvRows;
    const written: ImportCounts = { created: 0, updated: 0 };
    const write = async (lines: readonly ContactFields[]): Promise<void> => {
      const { created, updated } = await this.contacts.writeImportChunk(user.id, lines);
      written.created += created;
      written.updated += updated;
    };
    if (input.kind === 'list') {
      const checked: ContactFields[][] = [];
      const batch = new ContactImport(
        (lines) => {
          checked.push(lines);
          return Promise.resolve();
        },
        maxRows,
        'contacts',
      );
      await importContactsList(input.items, batch, country);
      await batch.flush();
      await this.writing('contacts', written, async () => {
        for (const lines of checked) {
          await write(lines);
        }
      });
      return written;
    }
    const spool = new ImportSpool(`${input.file.path}.checked`);
    try {
      const batch = new ContactImport((lines) => spool.append(lines), maxRows, 'contacts_csv');
      await importContactsCsv(createReadStream(input.file.path), batch, country);
      await batch.flush();
      await this.writing('contacts_csv', written, async () => {
        for await (const lines of spool.chunks()) {
          await write(lines);
        }
      });
      return written;
    } finally {
      await spool.remove();
    }
  }

  /**
   * Runs the writing of an import. A failure once some chunks were committed is answered with
   * what was written, and that sending the import again finishes it, since its lines update the
   * contacts of their names.
   */
  private async writing(
    source: string,
    written: ImportCounts,
    work: () => Promise<void>,
  ): Promise<void> {
    try {
      await work();
    } catch (error) {
      const lines = written.created + written.updated;
      if (lines === 0) {
        throw error;
      }
      this.logger.error({ err: error }, `A contact import stopped after ${lines} lines`);
      throw new ApiError(
        ErrorCode.INTERNAL_ERROR,
        `${source} : the import stopped after writing its first ${lines} lines ` +
          `(${written.created} created, ${written.updated} updated); the server log holds the ` +
          'cause. Sending the same import again finishes it: each line updates the contact of ' +
          'its name.',
      );
    }
  }
}

/** The same answer whether the contact does not exist or is another user's. */
function noContact(code: ErrorCode, id: number): ApiError {
  return ApiError.notFound(code, `id : you have no contact ${id}.`);
}
