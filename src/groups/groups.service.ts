import { Injectable } from '@nestjs/common';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { AuthenticatedUser } from '../common/http/request';
import { nameTaken } from '../common/params/entry-name';
import { notYours } from '../common/params/id-list';
import { EntriesService } from '../entries/entries.service';
import { Row } from '../entries/entries.repository';
import { CreateGroupInput, GroupIdInput, GroupName, UpdateGroupInput } from './groups.params';
import { GroupsRepository, GroupWrite } from './groups.repository';

/** post_group, get_group, post_update_group and delete_group (docs/api.md#post_group and after). */
@Injectable()
export class GroupsService {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly entries: EntriesService,
  ) {}

  /** post_group: the new group's id. Rules 1 and 2 were checked at the edge. */
  async create(user: AuthenticatedUser, input: CreateGroupInput): Promise<number> {
    // Rule 3.
    await this.checkName(user.id, input);
    // Rules 4 and 5.
    return this.written(user.id, input, undefined, () =>
      this.groups.create(user.id, input, input.contactIds),
    );
  }

  /** get_group: the group as get_entries lists it, with its contacts and nb_contact. */
  async read(user: AuthenticatedUser, { id }: GroupIdInput): Promise<Row> {
    const group = await this.entries.findOne(user.id, 'group', id);
    if (!group) {
      throw noGroup(ErrorCode.INVALID_PARAMETER, id);
    }
    return group;
  }

  /** post_update_group: the group as it now is. */
  async update(user: AuthenticatedUser, input: UpdateGroupInput): Promise<Row> {
    // Rule 1.
    const group = await this.groups.findOwned(user.id, input.id);
    if (!group) {
      throw noGroup(ErrorCode.CANNOT_UPDATE, input.id);
    }
    // Rule 2.
    const { name, contactIds } = input.changes.get();
    // Rule 3.
    if (name !== undefined) {
      await this.checkName(user.id, name, group.id);
    }
    // Rules 4 and 5.
    const updated = await this.written(user.id, name, group.id, () =>
      this.groups.update(user.id, group.id, name, contactIds),
    );
    const entry = updated ? await this.entries.findOne(user.id, 'group', group.id) : undefined;
    if (!entry) {
      throw noGroup(ErrorCode.CANNOT_UPDATE, input.id);
    }
    return entry;
  }

  /** delete_group: it leaves pending scheduled messages; its contacts stay. */
  async delete(user: AuthenticatedUser, { id }: GroupIdInput): Promise<true> {
    if (!(await this.groups.deleteOwned(user.id, id))) {
      throw noGroup(ErrorCode.CANNOT_DELETE, id);
    }
    return true;
  }

  private async checkName(userId: number, name: GroupName, exceptGroupId?: number) {
    if (await this.groups.isNameTaken(userId, name.nameKey, exceptGroupId)) {
      throw nameTaken(name.name, 'group');
    }
  }

  /**
   * Runs a write whose contacts are checked in its transaction (rule 4). A name taken by a
   * concurrent request meanwhile is told as rule 3 tells it.
   */
  private async written<T>(
    userId: number,
    name: GroupName | undefined,
    exceptGroupId: number | undefined,
    write: () => Promise<GroupWrite<T>>,
  ): Promise<T> {
    let result: GroupWrite<T>;
    try {
      result = await write();
    } catch (error) {
      if (name !== undefined) {
        await this.checkName(userId, name, exceptGroupId);
      }
      throw error;
    }
    if ('notOwned' in result) {
      throw notYours('contacts', result.notOwned, 'contacts');
    }
    return result.done;
  }
}

/** The same answer whether the group does not exist or is another user's. */
function noGroup(code: ErrorCode, id: number): ApiError {
  return ApiError.notFound(code, `id : you have no group ${id}.`);
}
