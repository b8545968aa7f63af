import { Injectable } from '@nestjs/common';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { Row } from '../entries/entries.repository';
import { EntriesService } from '../entries/entries.service';
import { MediaStorage } from '../media/media-storage';
import { SendedRepository } from './sended.repository';

/** get_sended and delete_sended (docs/api.md#get_sended). */
@Injectable()
export class SendedService {
  constructor(
    private readonly sended: SendedRepository,
    private readonly entries: EntriesService,
    private readonly media: MediaStorage,
  ) {}

  async findOne(userId: number, { id }: { id?: number }): Promise<Row> {
    const entry = id === undefined ? undefined : await this.entries.findOne(userId, 'sended', id);
    if (entry === undefined) {
      throw ApiError.notFound(ErrorCode.INVALID_PARAMETER, notYours(id));
    }
    return entry;
  }

  /** The entry's medias go with it, files included, unless something else still uses them. */
  async remove(userId: number, { id }: { id?: number }): Promise<true> {
    const medias = id === undefined ? null : await this.sended.deleteOwn(userId, id);
    if (medias === null) {
      throw ApiError.notFound(ErrorCode.CANNOT_DELETE, notYours(id));
    }
    await this.media.remove(medias.map((media) => media.path));
    return true;
  }
}

function notYours(id: number | undefined): string {
  return `id : ${id ?? '""'} is not the id of one of your sent messages.`;
}
