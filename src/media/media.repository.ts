import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { chunks, marks } from '../database/driver/placeholders';

/** A media row: its id and its file, relative to the media folder. */
export interface StoredMedia {
  id: number;
  path: string;
}

/**
 * That no entry links the media of the statement's `media` row. A media is linked when created
 * (its row and its `media_scheduled` link are written in one transaction), and its link only
 * ever moves forward, in one transaction each: from the scheduled message to the outbox rows of
 * its recipients when the message is expanded (`outbox.media_ids`, which no foreign key or index
 * covers), then from an outbox row to its `sended` entry when that is recorded. Nothing links an
 * existing media anew.
 */
const UNLINKED = ['media_scheduled', 'media_sended', 'media_received']
  .map((table) => `NOT EXISTS (SELECT 1 FROM ${table} l WHERE l.id_media = media.id)`)
  .join(' AND ');

/** The medias the outbox carries, each once. */
const QUEUED = {
  sqlite:
    'SELECT DISTINCT j.value AS id FROM outbox o, json_each(o.media_ids) j ' +
    'WHERE o.media_ids IS NOT NULL',
  mysql:
    'SELECT DISTINCT j.id FROM outbox o, ' +
    "JSON_TABLE(o.media_ids, '$[*]' COLUMNS (id INT PATH '$')) j " +
    'WHERE o.media_ids IS NOT NULL AND j.id IS NOT NULL',
};

/** Rows per `IN (…)` list: far below SQLite's 32,766 bound variables. */
const IDS_PER_QUERY = 1000;

/** The SQL of media clean-up: which medias nothing links any more, and removing their rows. */
@Injectable()
export class MediaRepository {
  private readonly mysql: boolean;

  constructor(private readonly dataSource: DataSource) {
    this.mysql = dataSource.options.type === 'mysql';
  }

  /** The highest media id, 0 when there is none. */
  async maxId(): Promise<number> {
    const rows = await this.dataSource.query<Array<{ id: number | string | null }>>(
      'SELECT MAX(id) AS id FROM media',
    );
    return Number(rows[0]?.id ?? 0);
  }

  /**
   * The medias of ids in (`afterId`, `toId`] created before `before` (UTC) that no entry links.
   * The outbox may still carry some of them: see `queuedIds`.
   */
  unlinkedBetween(afterId: number, toId: number, before: string): Promise<StoredMedia[]> {
    return this.dataSource.query<StoredMedia[]>(
      `SELECT id, path FROM media WHERE id > ? AND id <= ? AND created_at < ? AND ${UNLINKED}`,
      [afterId, toId, before],
    );
  }

  /**
   * The ids of the medias the outbox carries. One scan of the outbox: it has no index to find a
   * media's rows by, and MariaDB runs a NOT IN on it as a scan per media (seconds for tens of
   * medias against a campaign's outbox).
   */
  async queuedIds(): Promise<Set<number>> {
    const rows = await this.dataSource.query<Array<{ id: number | string }>>(
      this.mysql ? QUEUED.mysql : QUEUED.sqlite,
    );
    return new Set(rows.map((row) => Number(row.id)));
  }

  /**
   * Deletes those of `medias` still created before `before` that no entry links, in a short
   * transaction, and returns them. On MySQL, medias another collector holds are skipped
   * rather than waited for.
   */
  deleteUnlinked(medias: readonly StoredMedia[], before: string): Promise<StoredMedia[]> {
    return this.transaction(async (manager) => {
      const locked = this.mysql
        ? await manager.query<StoredMedia[]>(
            `SELECT id, path FROM media WHERE id IN (${marks(medias.length)}) FOR UPDATE SKIP LOCKED`,
            medias.map((media) => media.id),
          )
        : medias;
      return this.deleteWhereUnlinked(manager, locked, 'AND created_at < ?', [before]);
    });
  }

  /** The medias a scheduled message links, read before it is deleted. */
  linkedToScheduled(manager: EntityManager, scheduledId: number): Promise<StoredMedia[]> {
    return manager.query<StoredMedia[]>(
      'SELECT m.id, m.path FROM media_scheduled l JOIN media m ON m.id = l.id_media ' +
        'WHERE l.id_scheduled = ? ORDER BY m.id',
      [scheduledId],
    );
  }

  /** The medias a sent or received entry links, read before it is deleted. */
  linkedTo(
    manager: EntityManager,
    owner: 'sended' | 'received',
    id: number,
  ): Promise<StoredMedia[]> {
    return manager.query<StoredMedia[]>(
      `SELECT m.id, m.path FROM media_${owner} l JOIN media m ON m.id = l.id_media ` +
        `WHERE l.id_${owner} = ? ORDER BY m.id`,
      [id],
    );
  }

  /**
   * Deletes those of `medias` that no entry links and the outbox does not carry, in the caller's
   * transaction, and returns them. For the medias of a sent entry just deleted: the other
   * recipients of its message may still be queued with them. The outbox only ever stops
   * carrying a media, so reading it first is safe.
   */
  async deleteUnused(
    manager: EntityManager,
    medias: readonly StoredMedia[],
  ): Promise<StoredMedia[]> {
    if (medias.length === 0) {
      return [];
    }
    const queued = new Set(
      (
        await manager.query<Array<{ id: number | string }>>(
          this.mysql ? QUEUED.mysql : QUEUED.sqlite,
        )
      ).map((row) => Number(row.id)),
    );
    return this.deleteWhereUnlinked(
      manager,
      medias.filter((media) => !queued.has(Number(media.id))),
      '',
      [],
    );
  }

  /**
   * Deletes those of `medias` that no entry links any more, in the caller's transaction, and
   * returns them. For the medias of a scheduled message just deleted before its expansion
   * started: the outbox cannot carry them, since only that expansion puts them there.
   */
  deleteOrphans(manager: EntityManager, medias: readonly StoredMedia[]): Promise<StoredMedia[]> {
    return this.deleteWhereUnlinked(manager, medias, '', []);
  }

  /** Of `paths`, files of the user's folder, those that have a media row. */
  async existingPaths(userId: number, paths: readonly string[]): Promise<Set<string>> {
    const existing = new Set<string>();
    for (const chunk of chunks(paths, IDS_PER_QUERY)) {
      const rows = await this.dataSource.query<Array<{ path: string }>>(
        `SELECT path FROM media WHERE id_user = ? AND path IN (${marks(chunk.length)})`,
        [userId, ...chunk],
      );
      rows.forEach((row) => existing.add(row.path));
    }
    return existing;
  }

  /**
   * Deletes those of `medias` that no entry links (and that meet `condition`), then reads
   * which are still there: the others are the ones deleted, whatever the driver reports.
   */
  private async deleteWhereUnlinked(
    manager: EntityManager,
    medias: readonly StoredMedia[],
    condition: string,
    parameters: unknown[],
  ): Promise<StoredMedia[]> {
    if (medias.length === 0) {
      return [];
    }
    const ids = medias.map((media) => Number(media.id));
    await manager.query(
      `DELETE FROM media WHERE id IN (${marks(ids.length)}) AND ${UNLINKED} ${condition}`,
      [...ids, ...parameters],
    );
    const kept = await manager.query<Array<{ id: number | string }>>(
      `SELECT id FROM media WHERE id IN (${marks(ids.length)})`,
      ids,
    );
    const keptIds = new Set(kept.map((row) => Number(row.id)));
    return medias
      .filter((media) => !keptIds.has(Number(media.id)))
      .map((media) => ({ id: Number(media.id), path: media.path }));
  }

  /** READ COMMITTED on MySQL: no gap locks on the link tables the checks read. */
  private transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.mysql
      ? this.dataSource.transaction('READ COMMITTED', work)
      : this.dataSource.transaction(work);
  }
}
