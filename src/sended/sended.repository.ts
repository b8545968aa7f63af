import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { runOn } from '../database/driver/runner';
import { countAll, CountKind } from '../messages/message-counts';
import { MediaRepository, StoredMedia } from '../media/media.repository';

@Injectable()
export class SendedRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly medias: MediaRepository,
  ) {}

  /**
   * Deletes one of the user's sent entries, its counter (message-counts.ts) and its media links
   * (foreign keys), and the rows of its medias that nothing else uses any more. Returns those
   * medias, for their files to be removed, or null when the user has no such entry. READ COMMITTED
   * on MySQL: no gap locks on the link tables.
   */
  async deleteOwn(userId: number, id: number): Promise<StoredMedia[] | null> {
    const mysql = this.dataSource.options.type === 'mysql';
    const work = async (manager: EntityManager) => {
      // Locked first on MySQL, so that of two deletes of the same entry only one answers true.
      const found = await manager.query<
        Array<{ id_phone: number | null; at: string; status: string }>
      >(
        'SELECT id_phone, at, status FROM sended WHERE id = ? AND id_user = ?' +
          (mysql ? ' FOR UPDATE' : ''),
        [id, userId],
      );
      if (found.length === 0) {
        return null;
      }
      const [row] = found;
      const medias = await this.medias.linkedTo(manager, 'sended', id);
      await manager.query('DELETE FROM sended WHERE id = ? AND id_user = ?', [id, userId]);
      await runOn(
        manager,
        countAll(
          mysql,
          [{ id_user: userId, id_phone: row.id_phone, at: row.at, kind: row.status as CountKind }],
          -1,
        ),
      );
      return this.medias.deleteUnused(manager, medias);
    };
    return mysql
      ? this.dataSource.transaction('READ COMMITTED', work)
      : this.dataSource.transaction(work);
  }
}
