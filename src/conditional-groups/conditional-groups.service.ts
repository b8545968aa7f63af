import { Injectable } from '@nestjs/common';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { Paged } from '../common/http/envelope';
import { buildLink } from '../common/http/links';
import { AuthenticatedUser } from '../common/http/request';
import { nameKey, nameTaken } from '../common/params/entry-name';
import { AppConfig } from '../config/configuration';
import { contactRecipient } from '../contacts/contact-recipients';
import { EntriesService } from '../entries/entries.service';
import { Row } from '../entries/entries.repository';
import { PAGE_SIZE } from '../common/paging/cursor';
import { TextPool } from '../text/text-pool';
import {
  ConditionalGroupIdInput,
  CreateConditionalGroupInput,
  GroupContactsInput,
  PreviewInput,
  UpdateConditionalGroupInput,
} from './conditional-groups.params';
import { ConditionalGroupRow, ConditionalGroupsRepository } from './conditional-groups.repository';

const NOUN = 'conditional group';

/**
 * Contacts tested against a condition at a time, as the dispatch tests them: a chunk is one
 * query and one task of the text pool.
 */
const SCAN_CHUNK = 250;

/**
 * The conditional-group operations (docs/api.md#post_conditional_group and those after it).
 *
 * The previews select contacts exactly as the dispatch does: the user's contacts read in id order
 * by the same query, turned into the condition's input by the same function (contactRecipient),
 * and tested in the same text pool with the same compiled condition and the service time zone.
 */
@Injectable()
export class ConditionalGroupsService {
  constructor(
    private readonly groups: ConditionalGroupsRepository,
    private readonly entries: EntriesService,
    private readonly pool: TextPool,
    private readonly config: AppConfig,
  ) {}

  /** post_conditional_group: the new group's id. Rules 1 and 2 were checked by the parse. */
  async create(user: AuthenticatedUser, input: CreateConditionalGroupInput): Promise<number> {
    const { name, condition } = input;
    const key = nameKey(name);
    // Rule 3.
    if (await this.groups.isNameTaken(user.id, key)) {
      throw nameTaken(name, NOUN);
    }
    // Rule 4: a name taken by a concurrent request is told as rule 3 tells it.
    try {
      return await this.groups.create(user.id, { name, name_key: key, condition });
    } catch (error) {
      if (await this.groups.isNameTaken(user.id, key)) {
        throw nameTaken(name, NOUN);
      }
      throw error;
    }
  }

  /** get_conditional_group: the group as get_entries lists it. */
  async findOne(user: AuthenticatedUser, { id }: ConditionalGroupIdInput): Promise<Row> {
    // Rule 1.
    const row = await this.entries.findOne(user.id, 'conditional_group', id);
    if (!row) {
      throw noGroup(ErrorCode.INVALID_PARAMETER, id);
    }
    return row;
  }

  /** post_update_conditional_group: the group as it now is. */
  async update(user: AuthenticatedUser, input: UpdateConditionalGroupInput): Promise<Row> {
    const { id } = input;
    // Rule 1.
    if (!(await this.groups.findOwned(user.id, id))) {
      throw noGroup(ErrorCode.CANNOT_UPDATE, id);
    }
    // Rule 2.
    const { name, condition } = input.changes.get();
    const changes: Partial<ConditionalGroupRow> = {};
    if (name !== undefined) {
      changes.name = name;
      changes.name_key = nameKey(name);
      // Rule 3.
      if (await this.groups.isNameTaken(user.id, changes.name_key, id)) {
        throw nameTaken(name, NOUN);
      }
    }
    if (condition !== undefined) {
      changes.condition = condition;
    }
    // Rule 4: nothing sent changes nothing, and succeeds.
    if (Object.keys(changes).length > 0) {
      let updated: boolean;
      try {
        updated = await this.groups.update(user.id, id, changes);
      } catch (error) {
        if (name !== undefined && (await this.groups.isNameTaken(user.id, nameKey(name), id))) {
          throw nameTaken(name, NOUN);
        }
        throw error;
      }
      if (!updated) {
        throw noGroup(ErrorCode.CANNOT_UPDATE, id);
      }
    }
    const row = await this.entries.findOne(user.id, 'conditional_group', id);
    if (!row) {
      throw noGroup(ErrorCode.CANNOT_UPDATE, id);
    }
    return row;
  }

  /** delete_conditional_group. */
  async delete(user: AuthenticatedUser, { id }: ConditionalGroupIdInput): Promise<true> {
    // Rule 1.
    if (!(await this.groups.deleteOwned(user.id, id))) {
      throw noGroup(ErrorCode.CANNOT_DELETE, id);
    }
    return true;
  }

  /** get_conditional_group_contacts: a page of the contacts the group's condition selects now. */
  async contacts(
    user: AuthenticatedUser,
    { id, page }: GroupContactsInput,
    linkBase: string,
  ): Promise<Paged<Row>> {
    // Rule 1.
    const group = await this.groups.findOwned(user.id, id);
    if (!group) {
      throw noGroup(ErrorCode.INVALID_PARAMETER, id);
    }
    // Rule 2: a group stored without a condition selects nobody, as in the dispatch.
    return this.selectPage(user, group.condition ?? '', page, (to) =>
      buildLink(linkBase, `/api/conditional_group/${id}/contacts/`, {
        page: to,
        api_key: user.apiKey,
      }),
    );
  }

  /** get_conditional_group_preview: a page of the contacts a condition selects now. */
  preview(
    user: AuthenticatedUser,
    { condition, page }: PreviewInput,
    linkBase: string,
  ): Promise<Paged<Row>> {
    // Rule 3; rules 1 and 2 were checked by the parse.
    return this.selectPage(user, condition, page, (to) =>
      buildLink(linkBase, '/api/conditional_group/preview/', {
        condition,
        page: to,
        api_key: user.apiKey,
      }),
    );
  }

  /**
   * Page `page` of the user's contacts that `condition` selects, in id order, as get_entries
   * lists contacts; `next` when a contact is selected past it, `prev` from page 1 on. Contacts
   * are tested a chunk at a time until one more than the page is found, or none is left.
   */
  private async selectPage(
    user: AuthenticatedUser,
    condition: string,
    page: number,
    link: (page: number) => string,
  ): Promise<Paged<Row>> {
    const skip = page * PAGE_SIZE;
    const selected: number[] = [];
    let found = 0;
    let after = 0;
    while (found <= skip + PAGE_SIZE) {
      const contacts = await this.groups.contactsAfter(user.id, after, SCAN_CHUNK);
      if (contacts.length === 0) {
        break;
      }
      const { matched } = await this.pool.match(
        [condition],
        contacts.map(contactRecipient),
        this.config.timeZone,
      );
      matched.forEach((conditions, index) => {
        if (conditions.length > 0) {
          if (found >= skip && found < skip + PAGE_SIZE) {
            selected.push(Number(contacts[index].id));
          }
          found += 1;
        }
      });
      if (contacts.length < SCAN_CHUNK) {
        break;
      }
      after = Number(contacts[contacts.length - 1].id);
    }
    const rows = await this.entries.findMany(user.id, 'contact', selected);
    return new Paged(
      rows,
      found > skip + PAGE_SIZE ? link(page + 1) : null,
      page > 0 ? link(page - 1) : null,
    );
  }
}

/** The same answer whether the group does not exist or is another user's. */
function noGroup(
  code: ErrorCode.INVALID_PARAMETER | ErrorCode.CANNOT_UPDATE | ErrorCode.CANNOT_DELETE,
  id: number,
): ApiError {
  return ApiError.notFound(code, `id : you have no conditional group ${id}.`);
}
