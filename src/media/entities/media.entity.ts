import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

@Entity('media')
export class Media extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  /** Relative to the media folder under DATA_DIR; generated, never the client's file name. */
  @Column({ type: 'varchar', length: 1000 })
  path!: string;
}

@Entity('media_scheduled')
export class MediaScheduled extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_media!: number;

  @Column({ type: 'integer' })
  id_scheduled!: number;
}

@Entity('media_sended')
export class MediaSended extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_media!: number;

  @Column({ type: 'integer' })
  id_sended!: number;
}

@Entity('media_received')
export class MediaReceived extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_media!: number;

  @Column({ type: 'integer' })
  id_received!: number;
}

/** The media table and its links to messages, for the modules that read them. */
export const MEDIA_ENTITIES = [Media, MediaScheduled, MediaSended, MediaReceived];
