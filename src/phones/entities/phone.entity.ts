import { Column, Entity } from 'typeorm';
import { PhoneStatus } from '../../adapters/adapter';
import { IdColumn, Timestamped } from '../../database/columns';

@Entity('phone')
export class Phone extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 150 })
  name!: string;

  /** The adapter id (`test`, `twilio`…), never its RaspiSMS alias. */
  @Column({ type: 'varchar', length: 100 })
  adapter!: string;

  /**
   * JSON object string of the adapter's data fields, those its descriptor flags as secret
   * encrypted (`enc:v1:…`) within `adapterDataScope` of the phone.
   */
  @Column({ type: 'text', nullable: true })
  adapter_data!: string | null;

  @Column({ type: 'integer' })
  priority!: number;

  @Column({ type: 'varchar', length: 20 })
  status!: PhoneStatus;

  /** What the callback URLs smsgw builds for the phone carry instead of an API key. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  callback_token!: string | null;

  /** Messages per second at most (docs/dispatch.md#pacing); null: as fast as the provider takes. */
  @Column({ type: 'double', nullable: true })
  rate!: number | null;

  /** When (epoch ms) the phone's next sending slot is free; moved forward by each claim. */
  @Column({ type: 'bigint', nullable: true })
  pace_next_ms!: string | null;
}
