import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { lstat, mkdir, opendir, rename, unlink } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { UploadedFile } from '../common/http/request';
import { AppConfig } from '../config/configuration';
import { extensionForType } from './media-types';

/** A stored media's relative path is `<USER_FOLDER>/<FILE_NAME>`: names smsgw generated. */
export const USER_FOLDER = /^\d{1,10}$/;
export const FILE_NAME = /^[0-9a-f]{32}(\.[a-z0-9]{1,8})?$/;

/** File names of one folder handed out at a time, to be checked against the database. */
const NAMES_PER_BATCH = 1000;

/**
 * The files of medias, under `DATA_DIR/media/<id_user>/<32 random hex>.<ext>`. A media's `path`
 * column is relative to `DATA_DIR/media`; the client's file name never becomes a path.
 */
@Injectable()
export class MediaStorage {
  private readonly logger = new Logger(MediaStorage.name);
  private readonly root: string;

  constructor(config: AppConfig) {
    this.root = join(config.dataDir, 'media');
  }

  /**
   * Moves uploads (still in the temporary upload folder, which is emptied when the response
   * ends) into the user's media folder. Returns their relative paths, in order. When one cannot
   * be moved, those already moved are removed again and CANNOT_CREATE names the file.
   */
  async adopt(userId: number, files: readonly UploadedFile[]): Promise<string[]> {
    const paths: string[] = [];
    if (files.length === 0) {
      return paths;
    }
    const folder = String(userId);
    for (const file of files) {
      const path = `${folder}/${randomBytes(16).toString('hex')}${extensionOf(file)}`;
      try {
        await mkdir(join(this.root, folder), { recursive: true });
        await rename(file.path, this.absolute(path));
      } catch (error) {
        this.logger.error({ err: error }, `Could not store an uploaded media of user ${userId}`);
        await this.remove(paths);
        throw ApiError.refused(
          ErrorCode.CANNOT_CREATE,
          `medias : cannot store the file ${JSON.stringify(file.originalname)}.`,
        );
      }
      paths.push(path);
    }
    return paths;
  }

  /**
   * Removes media files whose rows are gone or were never written. One that cannot be removed
   * is logged and left: the collector's sweep of files without a row tries it again. One that
   * is already gone is no failure.
   */
  async remove(paths: readonly string[]): Promise<void> {
    await Promise.all(
      paths.map((path) =>
        unlink(this.absolute(path)).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') {
            this.logger.error({ err: error }, `Could not remove the orphan media file ${path}`);
          }
        }),
      ),
    );
  }

  /**
   * The names smsgw generated in the media folder, a user folder and a batch at a time, as
   * relative paths. Anything else found there is left alone.
   */
  async *storedFiles(): AsyncGenerator<{ userId: number; paths: string[] }> {
    for await (const folder of await openFolder(this.root)) {
      if (!folder.isDirectory() || !USER_FOLDER.test(folder.name)) {
        continue;
      }
      let paths: string[] = [];
      for await (const file of await openFolder(join(this.root, folder.name))) {
        if (file.isFile() && FILE_NAME.test(file.name)) {
          paths.push(`${folder.name}/${file.name}`);
        }
        if (paths.length === NAMES_PER_BATCH) {
          yield { userId: Number(folder.name), paths };
          paths = [];
        }
      }
      if (paths.length > 0) {
        yield { userId: Number(folder.name), paths };
      }
    }
  }

  /**
   * Whether the file was last written before `before`. An upload's file is written, moved here
   * and given its row within one request, so a file without a row that is older than the grace
   * period is no upload in progress. False for a file that is gone.
   */
  async writtenBefore(path: string, before: Date): Promise<boolean> {
    try {
      return (await lstat(this.absolute(path))).mtime < before;
    } catch {
      return false;
    }
  }

  absolute(path: string): string {
    return join(this.root, path);
  }
}

/** The temporary file's extension is already the safe one of the client's name, or none. */
function extensionOf(file: UploadedFile): string {
  return extname(file.path) || extensionForType(file.mimetype);
}

/** The entries of a folder; none when it does not exist (no media was ever stored). */
async function openFolder(path: string): Promise<AsyncIterable<Dirent>> {
  try {
    return await opendir(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return (async function* () {})();
    }
    throw error;
  }
}
