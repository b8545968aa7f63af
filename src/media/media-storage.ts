import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdir, rename, unlink } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { UploadedFile } from '../common/http/request';
import { AppConfig } from '../config/configuration';
import { extensionForType } from './media-types';

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
        await this.discard(paths);
        throw ApiError.refused(
          ErrorCode.CANNOT_CREATE,
          `medias : cannot store the file ${JSON.stringify(file.originalname)}.`,
        );
      }
      paths.push(path);
    }
    return paths;
  }

  /** Removes media files whose rows were never written (a failed creation). */
  async discard(paths: readonly string[]): Promise<void> {
    await Promise.all(
      paths.map((path) =>
        unlink(this.absolute(path)).catch((error: unknown) =>
          this.logger.error({ err: error }, `Could not remove the orphan media file ${path}`),
        ),
      ),
    );
  }

  absolute(path: string): string {
    return join(this.root, path);
  }
}

/** The temporary file's extension is already the safe one of the client's name, or none. */
function extensionOf(file: UploadedFile): string {
  return extname(file.path) || extensionForType(file.mimetype);
}
