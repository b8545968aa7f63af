import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

/** Where and how a user's systems are told of one type of event (docs/api.md#post_webhook). */
@Entity('webhook')
export class Webhook extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'varchar', length: 32 })
  type!: string;

  /** `raspisms` or `standard`: how deliveries are encoded and signed. */
  @Column({ type: 'varchar', length: 16 })
  format!: string;

  /** The signing key, as given or generated: signing needs it in clear. */
  @Column({ type: 'varchar', length: 128 })
  secret!: string;

  @Column({ type: 'tinyint' })
  enabled!: number;
}
