import { Injectable } from '@nestjs/common';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { AuthenticatedUser } from '../common/http/request';
import { nameKey, nameTaken } from '../common/params/entry-name';
import { notYours } from '../common/params/id-list';
import { EntriesService } from '../entries/entries.service';
import { Row } from '../entries/entries.repository';
import {
  CreatePhoneGroupInput,
  PhoneGroupIdInput,
  UpdatePhoneGroupInput,
} from './phone-groups.params';
import { Linked, PhoneGroupRow, PhoneGroupsRepository } from './phone-groups.repository';

const NOUN = 'phone group';

/** The phone-group operations (docs/api.md#post_phone_group and those after it). */
@Injectable()
export class PhoneGroupsService {
  constructor(
    private readonly groups: PhoneGroupsRepository,
    private readonly entries: EntriesService,
  ) {}

  /** post_phone_group: the new group's id. Rules 1 and 2 were checked by the parse. */
  async create(user: AuthenticatedUser, { name, phones }: CreatePhoneGroupInput): Promise<number> {
    const key = nameKey(name);
    // Rule 3.
    if (await this.groups.isNameTaken(user.id, key)) {
      throw nameTaken(name, NOUN);
    }
    // Rules 4 and 5, in one transaction; a name taken by a concurrent request is told as rule 3
    // tells it.
    let linked: Linked;
    try {
      linked = await this.groups.create(user.id, { name, name_key: key }, phones);
    } catch (error) {
      if (await this.groups.isNameTaken(user.id, key)) {
        throw nameTaken(name, NOUN);
      }
      throw error;
    }
    if ('notOwned' in linked) {
      throw notYours('phones', linked.notOwned, 'phones');
    }
    return linked.id;
  }

  /** get_phone_group: the group as get_entries lists it. */
  async findOne(user: AuthenticatedUser, { id }: PhoneGroupIdInput): Promise<Row> {
    // Rule 1.
    const row = await this.entries.findOne(user.id, 'phone_group', id);
    if (!row) {
      throw noGroup(ErrorCode.INVALID_PARAMETER, id);
    }
    return row;
  }

  /** post_update_phone_group: the group as it now is. */
  async update(user: AuthenticatedUser, input: UpdatePhoneGroupInput): Promise<Row> {
    const { id } = input;
    // Rule 1.
    if (!(await this.groups.findOwned(user.id, id))) {
      throw noGroup(ErrorCode.CANNOT_UPDATE, id);
    }
    // Rule 2.
    const { name, phones } = input.changes.get();
    const changes: Partial<PhoneGroupRow> = {};
    if (name !== undefined) {
      changes.name = name;
      changes.name_key = nameKey(name);
      // Rule 3.
      if (await this.groups.isNameTaken(user.id, changes.name_key, id)) {
        throw nameTaken(name, NOUN);
      }
    }
    // Rules 4 and 5, in one transaction; nothing sent changes nothing, and succeeds.
    let linked: Linked | null = { id };
    if (name !== undefined || phones !== undefined) {
      try {
        linked = await this.groups.update(user.id, id, changes, phones);
      } catch (error) {
        if (name !== undefined && (await this.groups.isNameTaken(user.id, nameKey(name), id))) {
          throw nameTaken(name, NOUN);
        }
        throw error;
      }
    }
    if (linked !== null && 'notOwned' in linked) {
      throw notYours('phones', linked.notOwned, 'phones');
    }
    const row = linked && (await this.entries.findOne(user.id, 'phone_group', id));
    if (!row) {
      throw noGroup(ErrorCode.CANNOT_UPDATE, id);
    }
    return row;
  }

  /** delete_phone_group. */
  async delete(user: AuthenticatedUser, { id }: PhoneGroupIdInput): Promise<true> {
    // Rules 1 and 2, in one transaction.
    const deleted = await this.groups.deleteUnused(user.id, id);
    if (deleted === 'not_found') {
      throw noGroup(ErrorCode.CANNOT_DELETE, id);
    }
    if (deleted !== 'deleted') {
      const { pending } = deleted;
      const one = pending === 1;
      throw ApiError.refused(
        ErrorCode.CANNOT_DELETE,
        `${pending} pending message${one ? ' is' : 's are'} to be sent through phone group ` +
          `${id}: delete ${one ? 'it' : 'them'}, or wait until ${one ? 'it is' : 'they are'} ` +
          'sent, then delete the group.',
      );
    }
    return true;
  }
}

/** The same answer whether the group does not exist or is another user's. */
function noGroup(
  code: ErrorCode.INVALID_PARAMETER | ErrorCode.CANNOT_UPDATE | ErrorCode.CANNOT_DELETE,
  id: number,
): ApiError {
  return ApiError.notFound(code, `id : you have no phone group ${id}.`);
}
