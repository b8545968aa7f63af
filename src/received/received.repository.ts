import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { nowUtc } from '../common/time/datetime';
import { runOn } from '../database/driver/runner';
import { countAll } from '../messages/message-counts';
import { MediaRepository, StoredMedia } from '../media/media.repository';
import { ReceivedStatus } from './entities/received.entity';

@Injectable()
export class ReceivedRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly medias: MediaRepository,
  ) {}

  /** Sets the status of one of the user's received entries; nothing when it is not theirs. */
  async setStatus(userId: number, id: number, status: ReceivedStatus): Promise<void> {
    await this.dataSource.query(
      'UPDATE received SET status = ?, updated_at = ? WHERE id = ? AND id_user = ?',
      [status, nowUtc(), id, userId],
    );
  }

  /**
   * Deletes one of the user's received entries, its counter (message-counts.ts) and its media links
   * (foreign keys), and the rows of its medias that nothing else links (the outbox carries only the
   * medias of sent messages). Returns those medias, for their files to be removed, or null when the
   * user has no such entry. READ COMMITTED on MySQL: no gap locks on the link tables.
   */
  async deleteOwn(userId: number, id: number): Promise<StoredMedia[] | null> {
    const mysql = this.dataSource.options.type === 'mysql';
    const work = async (manager: EntityManager) => {
      // Locked first on MySQL, so that of two deletes of the same entry only one answers true.
      const found = await manager.query<Array<{ id_phone: number | null; at: string }>>(
        'SELECT id_phone, at FROM received WHERE id = ? AND id_user = ?' +
          (mysql ? ' FOR UPDATE' : ''),
        [id, userId],
      );
      if (found.length === 0) {
        return null;
      }
      const [row] = found;
      const medias = await this.medias.linkedTo(manager, 'received', id);
      await manager.query('DELETE FROM received WHERE id = ? AND id_user = ?', [id, userId]);
      await runOn(
        manager,
        countAll(
          mysql,
          [{ id_user: userId, id_phone: row.id_phone, at: row.at, kind: 'received' }],
          -1,
        ),
      );
      return this.medias.deleteOrphans(manager, medias);
    };
    return mysql
      ? this.dataSource.transaction('READ COMMITTED', work)
      : this.dataSource.transaction(work);
  }
}
