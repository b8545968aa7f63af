import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../common/database/columns';

export type PhoneStatus = 'available' | 'unavailable' | 'no_credit' | 'limit_reached' | 'disabled';

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
}

/**
 * What the encryption of a secret field of a phone's `adapter_data` is bound to (with the
 * field's name): its owner and the phone itself, so that a value copied to another phone, or
 * another user's, does not decrypt.
 */
export function adapterDataScope(phone: Pick<Phone, 'id' | 'id_user'>): string {
  return `phone/${Number(phone.id_user)}/${Number(phone.id)}/adapter_data`;
}
