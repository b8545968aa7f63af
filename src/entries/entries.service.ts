import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AdapterDataCipher } from '../adapters/adapter-data.cipher';
import { Paged } from '../common/http/envelope';
import { callbackUrls } from '../common/http/callback-urls';
import { buildLink } from '../common/http/links';
import { Cursor } from '../common/paging/cursor';
import { pageLinks } from '../common/paging/page-links';
import { utcToZone } from '../common/time/datetime';
import { readRefusals } from '../common/failover/refusals';
import { AppConfig } from '../config/configuration';
import { messagePriority } from '../scheduled/entities/message-priority';
import { EntriesRepository, Row } from './entries.repository';
import { EntriesInput } from './entries.params';
import { EntryType } from './entry-types';

const DATETIME_FIELDS = ['at', 'created_at', 'updated_at', 'send_after'];

/** get_entries (docs/api.md#get_entries). */
@Injectable()
export class EntriesService {
  constructor(
    private readonly entries: EntriesRepository,
    private readonly config: AppConfig,
    private readonly secrets: AdapterDataCipher,
  ) {}

  async list(
    userId: number,
    apiKey: string | undefined,
    { type, cursor, filters, filterParams }: EntriesInput,
    linkBase: string,
  ): Promise<Paged<Row>> {
    // Rules 1, 5 and 6 were checked at the edge (entries.params.ts).
    // Rules 2 and 7.
    const rows = await this.entries.listPage(type, userId, cursor, filters);
    const items = (await this.withExtras(type, rows)).map((row) => this.present(row));
    const link = (to: Cursor) =>
      buildLink(linkBase, `/api/list/${type}/${cursorPath(to)}/`, {
        ...filterParams,
        api_key: apiKey,
      });
    // Rules 3 and 4.
    const { next, prev } = pageLinks(
      cursor,
      rows.map((row) => Number(row.id)),
      link,
    );
    return new Paged(items, next, prev);
  }

  /**
   * The caller's entry `id` of a type exactly as get_entries lists it (the read-one operations,
   * and what an update answers), or undefined when it is not the caller's. With `manager`, read
   * in that transaction: an update answers what it wrote, before anyone else can change it.
   */
  async findOne(
    userId: number,
    type: EntryType,
    id: number,
    manager?: EntityManager,
  ): Promise<Row | undefined> {
    const entries = manager ? this.entries.within(manager) : this.entries;
    const row = await entries.findOne(type, userId, id);
    return row && this.present((await this.withExtras(type, [row], entries))[0]);
  }

  /**
   * The caller's entries `ids` of a type as get_entries lists them, in id order; ids that are not
   * the caller's entries are left out.
   */
  async findMany(userId: number, type: EntryType, ids: readonly number[]): Promise<Row[]> {
    const rows = await this.entries.findMany(type, userId, ids);
    return (await this.withExtras(type, rows)).map((row) => this.present(row));
  }

  /** Adds the extra fields of docs/api.md#entry-types, each with one query for the whole page. */
  private async withExtras(
    type: EntryType,
    rows: Row[],
    entries: EntriesRepository = this.entries,
  ): Promise<Row[]> {
    const ids = rows.map((row) => Number(row.id));
    switch (type) {
      case 'sended': {
        const withRefusals = rows.map((row) => ({
          ...row,
          refusals: readRefusals(row.refusals as string | null).map((refusal) => ({
            ...refusal,
            at: utcToZone(refusal.at, this.config.timeZone),
          })),
        }));
        return attach(withRefusals, { medias: await entries.medias(type, ids) });
      }
      case 'received':
        return attach(rows, { medias: await entries.medias(type, ids) });
      case 'scheduled': {
        const [numbers, contacts, groups, conditionalGroups, medias] = await Promise.all([
          entries.scheduledNumbers(ids),
          entries.scheduledContacts(ids),
          entries.scheduledGroups(ids),
          entries.scheduledConditionalGroups(ids),
          entries.medias('scheduled', ids),
        ]);
        // The window as given is stored as send_window: MySQL reserves the word.
        const withControls = rows.map(({ send_window: window, send_after: sendAfter, ...row }) => ({
          ...row,
          priority: messagePriority(Number(row.priority)),
          window,
          send_after: sendAfter,
        }));
        return attach(withControls, {
          numbers,
          contacts,
          groups,
          conditional_groups: conditionalGroups,
          medias,
        });
      }
      case 'group': {
        const withContacts = attach(rows, { contacts: await entries.groupContacts(ids) });
        return withContacts.map(({ contacts, ...row }) => ({
          ...row,
          nb_contact: (contacts as Row[]).length,
          contacts,
        }));
      }
      case 'phone':
        return attach(
          rows.map((phone) => this.withVisibleData(phone)),
          { limits: await entries.phoneLimits(ids) },
        );
      case 'phone_group': {
        const members = await entries.phoneGroupPhones(ids);
        const limits = await entries.phoneLimits(members.map(([, phone]) => Number(phone.id)));
        const phones = attach(
          members.map(([, phone]) => this.withVisibleData(phone)),
          { limits },
        );
        const linked = members.map(([owner], index): [number, Row] => [owner, phones[index]]);
        return attach(rows, { phones: linked }).map(({ phones, ...row }) => ({
          ...row,
          nb_phone: (phones as Row[]).length,
          phones,
        }));
      }
      case 'contact':
      case 'conditional_group':
      case 'media':
        return rows;
    }
  }

  /**
   * A phone without the secrets of its adapter data, or without it when its adapter hides it,
   * and with its callback URLs in place of its token.
   */
  private withVisibleData(phone: Row): Row {
    const { callback_token: token, ...listed } = phone;
    const { adapter_data: stored, ...rest } = listed;
    const visible = this.secrets.visible({
      adapter: String(phone.adapter),
      adapter_data: stored as string | null,
    });
    const shown = visible === undefined ? rest : { ...listed, adapter_data: visible };
    return { ...shown, callback_urls: callbackUrls(this.config, token as string | null) };
  }

  /** Datetimes in the service time zone, nested records included. */
  private present(row: Row): Row {
    const presented: Row = {};
    for (const [key, value] of Object.entries(row)) {
      if (DATETIME_FIELDS.includes(key) && (typeof value === 'string' || value === null)) {
        presented[key] = utcToZone(value, this.config.timeZone);
      } else if (Array.isArray(value)) {
        presented[key] = value.map((item: Row) => this.present(item));
      } else {
        presented[key] = value;
      }
    }
    return presented;
  }
}

/** Puts each linked list on its owner row, under its field name; owners without links get []. */
function attach(rows: Row[], fields: Record<string, Array<[number, Row]>>): Row[] {
  const byField = Object.entries(fields).map(([field, linked]) => {
    const byOwner = new Map<number, Row[]>();
    for (const [owner, row] of linked) {
      const list = byOwner.get(owner) ?? [];
      list.push(row);
      byOwner.set(owner, list);
    }
    return [field, byOwner] as const;
  });
  return rows.map((row) => {
    const extended: Row = { ...row };
    for (const [field, byOwner] of byField) {
      extended[field] = byOwner.get(Number(row.id)) ?? [];
    }
    return extended;
  });
}

/** A cursor as get_entries' path forms take it. */
function cursorPath(cursor: Cursor): string {
  switch (cursor.mode) {
    case 'page':
      return String(cursor.page);
    case 'after':
      return `after/${cursor.id}`;
    case 'before':
      return `before/${cursor.id}`;
  }
}
