import { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { InsertTree } from '../database/driver/group-commit';
import { TableInsert } from '../database/driver/table-insert';
import { nowUtc } from '../common/time/datetime';
import { Media, MediaScheduled } from '../media/entities/media.entity';
import { STORED_PRIORITY } from './entities/message-priority';
import {
  Scheduled,
  ScheduledConditionalGroup,
  ScheduledContact,
  ScheduledGroup,
  ScheduledNumber,
} from './entities/scheduled.entity';
import { NewScheduled, RecipientNumber, Recipients } from './scheduled-message';

/**
 * The rows a scheduled message is written as: the message, its numbers, its links to contacts,
 * groups and conditional groups, its medias and their links, as trees of multi-row INSERTs whose
 * children get the id of the row above them (DriverSql.insert runs them).
 */
export class ScheduledRows {
  private readonly scheduled: TableInsert;
  private readonly hiddenScheduled: TableInsert;
  private readonly numbers: TableInsert;
  private readonly contacts: TableInsert;
  private readonly groups: TableInsert;
  private readonly conditionalGroups: TableInsert;
  private readonly mediaRows: TableInsert;
  private readonly mediaLinks: TableInsert;

  constructor(dataSource: DataSource) {
    const table = (entity: EntityTarget<ObjectLiteral>, ...columns: string[]) =>
      new TableInsert(dataSource, entity, [...columns, 'created_at', 'updated_at']);
    const scheduledColumns = [
      'id_user',
      'at',
      'text',
      'flash',
      'mms',
      'tag',
      'id_phone',
      'id_phone_group',
      'validity',
      'priority',
      'send_window',
      'effective_window',
      'send_after',
    ];
    this.scheduled = table(Scheduled, ...scheduledColumns);
    this.hiddenScheduled = table(Scheduled, ...scheduledColumns, 'hidden');
    this.numbers = table(ScheduledNumber, 'id_scheduled', 'number', 'data');
    this.contacts = table(ScheduledContact, 'id_scheduled', 'id_contact');
    this.groups = table(ScheduledGroup, 'id_scheduled', 'id_group');
    this.conditionalGroups = table(
      ScheduledConditionalGroup,
      'id_scheduled',
      'id_conditional_group',
    );
    this.mediaRows = table(Media, 'id_user', 'path');
    this.mediaLinks = table(MediaScheduled, 'id_media', 'id_scheduled');
  }

  /** The message's row, and the rows that point at it once its id is known. */
  message(message: NewScheduled): InsertTree {
    const now = nowUtc();
    const stamp = [now, null];
    return this.scheduled.row(
      [message.userId, ...messageValues(message), ...stamp],
      (scheduledId) => [
        // First: a key already used is refused before the rest is written.
        ...(message.keep ? [message.keep(scheduledId)] : []),
        ...this.numberRows(scheduledId, message.numbers, stamp),
        ...this.links(message, scheduledId, stamp),
        ...this.medias(message, scheduledId, stamp),
      ],
    );
  }

  /**
   * A message too large for one transaction, hidden (src/messages/hidden-messages.ts), with its
   * links: its numbers, its idempotency key and its medias are written after it.
   */
  hiddenMessage(message: NewScheduled, sendAfter: string, stamp: unknown[]): InsertTree {
    return this.hiddenScheduled.row(
      [message.userId, ...messageValues({ ...message, sendAfter }), 1, ...stamp],
      (scheduledId) => this.links(message, scheduledId, stamp),
    );
  }

  numberRows(
    scheduledId: number,
    numbers: readonly RecipientNumber[],
    stamp: unknown[],
  ): InsertTree[] {
    return this.numbers.rows(
      numbers.map(({ number, data }) => [scheduledId, number, data, ...stamp]),
    );
  }

  /** One of the message's lists: its numbers, or its links to one kind of recipient. */
  list(
    list: 'numbers' | Recipients,
    scheduledId: number,
    message: Pick<NewScheduled, 'numbers' | 'contactIds' | 'groupIds' | 'conditionalGroupIds'>,
    stamp: unknown[],
  ): InsertTree[] {
    const links = (ids: readonly number[], table: TableInsert) =>
      table.rows(ids.map((id) => [scheduledId, id, ...stamp]));
    switch (list) {
      case 'numbers':
        return this.numberRows(scheduledId, message.numbers, stamp);
      case 'contacts':
        return links(message.contactIds, this.contacts);
      case 'groups':
        return links(message.groupIds, this.groups);
      case 'conditional_groups':
        return links(message.conditionalGroupIds, this.conditionalGroups);
    }
  }

  /** The message's links to contacts, groups and conditional groups. */
  private links(message: NewScheduled, scheduledId: number, stamp: unknown[]): InsertTree[] {
    return [
      ...this.list('contacts', scheduledId, message, stamp),
      ...this.list('groups', scheduledId, message, stamp),
      ...this.list('conditional_groups', scheduledId, message, stamp),
    ];
  }

  /** The message's medias, and their links to it. */
  medias(message: NewScheduled, scheduledId: number, stamp: unknown[]): InsertTree[] {
    return message.mediaPaths.map((path) =>
      this.mediaRows.row([message.userId, path, ...stamp], (mediaId) => [
        this.mediaLinks.row([mediaId, scheduledId, ...stamp]),
      ]),
    );
  }
}

/**
 * The `scheduled` columns of a message, from `at` to `validity`, then `priority`, its window as
 * given, the window that applies and `send_after`.
 */
export function messageValues(message: Omit<NewScheduled, 'userId' | 'mediaPaths'>): unknown[] {
  return [
    message.at,
    message.text,
    message.flash ? 1 : 0,
    message.mms ? 1 : 0,
    message.tag,
    message.phoneId,
    message.phoneGroupId,
    message.validity,
    STORED_PRIORITY[message.priority],
    message.window,
    message.effectiveWindow,
    message.sendAfter,
  ];
}
