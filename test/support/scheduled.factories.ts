import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DataSource } from 'typeorm';
import { Media, MediaScheduled } from '../../src/media/entities/media.entity';
import {
  Scheduled,
  ScheduledConditionalGroup,
  ScheduledContact,
  ScheduledGroup,
  ScheduledNumber,
} from '../../src/scheduled/entities/scheduled.entity';

/*
 * Helpers of the scheduled-message tests: what a creation left in the database and in the media
 * folder, request bodies built byte for byte as curl builds them, a frozen clock, and a record
 * of the SQL a request sends.
 */

/** A scheduled message as stored, with every row that hangs off it, ordered by id. */
export interface StoredScheduled {
  scheduled: Scheduled | null;
  numbers: Array<{ number: string; data: string | null }>;
  contactIds: number[];
  groupIds: number[];
  conditionalGroupIds: number[];
  medias: Media[];
}

export async function storedScheduled(ds: DataSource, id: number): Promise<StoredScheduled> {
  const order = { order: { id: 'ASC' as const } };
  const numbers = await ds
    .getRepository(ScheduledNumber)
    .find({ where: { id_scheduled: id }, ...order });
  const links = await ds
    .getRepository(MediaScheduled)
    .find({ where: { id_scheduled: id }, ...order });
  const medias: Media[] = [];
  for (const link of links) {
    medias.push(await ds.getRepository(Media).findOneByOrFail({ id: link.id_media }));
  }
  return {
    scheduled: await ds.getRepository(Scheduled).findOneBy({ id }),
    numbers: numbers.map(({ number, data }) => ({ number, data })),
    contactIds: (
      await ds.getRepository(ScheduledContact).find({ where: { id_scheduled: id }, ...order })
    ).map((row) => row.id_contact),
    groupIds: (
      await ds.getRepository(ScheduledGroup).find({ where: { id_scheduled: id }, ...order })
    ).map((row) => row.id_group),
    conditionalGroupIds: (
      await ds
        .getRepository(ScheduledConditionalGroup)
        .find({ where: { id_scheduled: id }, ...order })
    ).map((row) => row.id_conditional_group),
    medias,
  };
}

/** The `n` of a `SELECT COUNT(*) AS n …`, as a number on every engine. */
export async function countRows(
  ds: DataSource,
  sql: string,
  parameters: unknown[],
): Promise<number> {
  const rows = await ds.query<Array<{ n: number | string }>>(sql, parameters);
  return Number(rows[0].n);
}

/** How many rows of each table a user's scheduled messages and medias hold. */
export async function countScheduledRows(
  ds: DataSource,
  userId: number,
): Promise<Record<string, number>> {
  const count = (sql: string) => countRows(ds, sql, [userId]);
  const linked = (table: string) =>
    `SELECT COUNT(*) AS n FROM ${table} l JOIN scheduled s ON s.id = l.id_scheduled WHERE s.id_user = ?`;
  return {
    scheduled: await count('SELECT COUNT(*) AS n FROM scheduled WHERE id_user = ?'),
    scheduled_number: await count(linked('scheduled_number')),
    scheduled_contact: await count(linked('scheduled_contact')),
    scheduled_group: await count(linked('scheduled_group')),
    scheduled_conditional_group: await count(linked('scheduled_conditional_group')),
    media: await count('SELECT COUNT(*) AS n FROM media WHERE id_user = ?'),
  };
}

/** Every file under `folder`, relative to it; none when the folder does not exist. */
export function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) {
    return [];
  }
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => statSync(join(folder, name)).isFile())
    .map((name) => relative(folder, join(folder, name)).split('\\').join('/'))
    .sort();
}

/** A tiny but real PNG (1×1, transparent). */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);
