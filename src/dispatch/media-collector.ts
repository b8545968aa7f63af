import { Injectable, Logger } from '@nestjs/common';
import { setImmediate } from 'node:timers/promises';
import { AppConfig } from '../config/configuration';
import { MediaStorage } from '../media/media-storage';
import { MediaRepository, StoredMedia } from '../media/media.repository';
import { utcString } from '../common/time/datetime';

/** Media ids looked at per query: a few milliseconds of the single SQLite writer. */
const IDS_PER_RANGE = 1000;

/** Unlinked medias gathered before the outbox is read and they are deleted together. */
const MEDIAS_PER_BATCH = 1000;

/** What one collection removed. */
export interface Collected {
  /** Media rows (and their files) no entry linked any more. */
  medias: number;
  /** Files of the media folder that had no row. */
  files: number;
}

/**
 * Removes the medias nothing uses any more: rows no scheduled message, sent or received
 * entry, nor outbox row waiting to be sent links, with their files, and files without a row
 * (their row went but removing the file failed, or the process stopped in between). Only
 * what is older than the grace period (MEDIA_GRACE_HOURS) goes, so that an upload still
 * being written is never taken for an orphan. Run by the dispatch worker.
 */
@Injectable()
export class MediaCollector {
  private readonly logger = new Logger(MediaCollector.name);

  constructor(
    private readonly repository: MediaRepository,
    private readonly storage: MediaStorage,
    private readonly config: AppConfig,
  ) {}

  /** One pass over every media, in bounded batches; stops early once `active` says so. */
  async collect(now: Date, active: () => boolean = () => true): Promise<Collected> {
    const cutoff = new Date(now.getTime() - this.config.mediaGraceMs);
    const collected = {
      medias: await this.collectRows(utcString(cutoff), active),
      files: await this.collectFiles(cutoff, active),
    };
    if (collected.medias > 0 || collected.files > 0) {
      this.logger.log(
        `Removed ${collected.medias} medias no entry used any more and ${collected.files} media files without a row.`,
      );
    }
    return collected;
  }

  /** Media rows created before `before` that nothing links, with their files. */
  private async collectRows(before: string, active: () => boolean): Promise<number> {
    let removed = 0;
    const maxId = await this.repository.maxId();
    let unlinked: StoredMedia[] = [];
    for (let afterId = 0; afterId < maxId && active(); afterId += IDS_PER_RANGE) {
      unlinked.push(
        ...(await this.repository.unlinkedBetween(afterId, afterId + IDS_PER_RANGE, before)),
      );
      if (unlinked.length >= MEDIAS_PER_BATCH || afterId + IDS_PER_RANGE >= maxId) {
        removed += await this.removeUnused(unlinked, before);
        unlinked = [];
      }
      // Lets the API's requests in between queries, as the single SQLite writer is shared.
      await setImmediate();
    }
    return removed;
  }

  /** Files of the media folder written before `before` that have no row. */
  private async collectFiles(before: Date, active: () => boolean): Promise<number> {
    let removed = 0;
    for await (const { userId, paths } of this.storage.storedFiles()) {
      if (!active()) {
        break;
      }
      const known = await this.repository.existingPaths(userId, paths);
      const strays: string[] = [];
      for (const path of paths) {
        if (!known.has(path) && (await this.storage.writtenBefore(path, before))) {
          strays.push(path);
        }
      }
      await this.storage.remove(strays);
      removed += strays.length;
    }
    return removed;
  }

  /**
   * Deletes those of `unlinked` that the outbox does not carry either, rows then files. The
   * order of the reads is what makes it safe, with the deletion checking the entries' links
   * again: the medias were read unlinked by any entry before the outbox is read, and a link
   * only moves forward (scheduled message, then outbox, then sent entry, each move in one
   * transaction), so a media that was in the outbox then is either still there, and kept, or
   * linked to its sent entry by the time it would be deleted, and kept by that check. A media
   * uploaded meanwhile is younger than the grace period.
   */
  private async removeUnused(unlinked: readonly StoredMedia[], before: string): Promise<number> {
    if (unlinked.length === 0) {
      return 0;
    }
    const queued = await this.repository.queuedIds();
    const unused = unlinked.filter((media) => !queued.has(Number(media.id)));
    if (unused.length === 0) {
      return 0;
    }
    const removed = await this.repository.deleteUnlinked(unused, before);
    // Files go once their rows are committed: a failed transaction leaves both in place.
    await this.storage.remove(removed.map((media) => media.path));
    return removed.length;
  }
}
