import { Injectable } from '@nestjs/common';
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
import {
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
   * post_import_contacts: every line in one transaction, read and written chunk by chunk (rule 1
   * was checked at the edge).
   */
  async import(user: AuthenticatedUser, input: ImportContactsInput): Promise<ImportCounts> {
    const country = countryOf(user);
    const source = input.kind === 'csv' ? 'contacts_csv' : 'contacts';
    return this.contacts.importing(user.id, async (writeChunk) => {
      const batch = new ContactImport(writeChunk, this.config.limits.csvRows, source);
      if (input.kind === 'csv') {
        // Rules 2 to 4.
        await importContactsCsv(createReadStream(input.file.path), batch, country);
      } else {
        // Rules 3 and 4.
        await importContactsList(input.items, batch, country);
      }
      // Rule 5.
      return batch.finish();
    });
  }
}

/** The same answer whether the contact does not exist or is another user's. */
function noContact(code: ErrorCode, id: number): ApiError {
  return ApiError.notFound(code, `id : you have no contact ${id}.`);
}
