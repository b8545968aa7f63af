import { Injectable } from '@nestjs/common';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { Row } from '../entries/entries.repository';
import { EntriesService } from '../entries/entries.service';
import { MediaStorage } from '../media/media-storage';
import { ReceivedStatusInput } from './received.params';
import { ReceivedRepository } from './received.repository';

/** get_received, post_update_received and delete_received (docs/api.md#get_received). */
@Injectable()
export class ReceivedService {
  constructor(
    private readonly received: ReceivedRepository,
    private readonly entries: EntriesService,
    private readonly media: MediaStorage,
  ) {}

  async findOne(userId: number, { id }: { id?: number }): Promise<Row> {
    const entry = id === undefined ? undefined : await this.entries.findOne(userId, 'received', id);
    if (entry === undefined) {
      throw ApiError.notFound(ErrorCode.INVALID_PARAMETER, notYours(id));
    }
    return entry;
  }

  /** post_update_received: the entry as it now is. */
  async setStatus(userId: number, { id, status }: ReceivedStatusInput): Promise<Row> {
    // Rule 1 was checked at the edge (received.params.ts).
    if (id !== undefined) {
      await this.received.setStatus(userId, id, status);
    }
    // Rule 2: the update touched nothing of another user's, and the read tells it.
    const entry = id === undefined ? undefined : await this.entries.findOne(userId, 'received', id);
    if (entry === undefined) {
      throw ApiError.notFound(ErrorCode.CANNOT_UPDATE, notYours(id));
    }
    return entry;
  }

  /** The entry's medias go with it, files included, unless something else still uses them. */
  async remove(userId: number, { id }: { id?: number }): Promise<true> {
    const medias = id === undefined ? null : await this.received.deleteOwn(userId, id);
    if (medias === null) {
      throw ApiError.notFound(ErrorCode.CANNOT_DELETE, notYours(id));
    }
    await this.media.remove(medias.map((media) => media.path));
    return true;
  }
}

function notYours(id: number | undefined): string {
  return `id : ${id ?? '""'} is not the id of one of your received messages.`;
}
