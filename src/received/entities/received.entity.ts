import { Column, Entity } from 'typeorm';
import { UserMessage } from '../../database/columns';

export type ReceivedStatus = 'unread' | 'read';

@Entity('received')
export class Received extends UserMessage {
  @Column({ type: 'varchar', length: 20 })
  origin!: string;

  @Column({ type: 'tinyint' })
  command!: number;

  @Column({ type: 'varchar', length: 16 })
  status!: ReceivedStatus;

  @Column({ type: 'tinyint' })
  mms!: number;
}
