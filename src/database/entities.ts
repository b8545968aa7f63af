import { ConditionalGroup } from '../conditional-groups/entities/conditional-group.entity';
import { Contact } from '../contacts/entities/contact.entity';
import { Group, GroupContact } from '../groups/entities/group.entity';
import { Outbox } from '../dispatch/entities/outbox.entity';
import { SendRefusal } from '../dispatch/entities/send-refusal.entity';
import { MEDIA_ENTITIES } from '../media/entities/media.entity';
import { Received } from '../received/entities/received.entity';
import { Sended } from '../sended/entities/sended.entity';
import { SmsStop } from '../stop-list/entities/sms-stop.entity';
import { PhoneGroup, PhoneGroupPhone } from '../phone-groups/entities/phone-group.entity';
import { PhoneLimit } from '../phones/entities/phone-limit.entity';
import { Phone } from '../phones/entities/phone.entity';
import { SCHEDULED_ENTITIES } from '../scheduled/entities/scheduled.entity';
import { Quota } from '../users/entities/quota.entity';
import { Setting } from '../users/entities/setting.entity';
import { User } from '../users/entities/user.entity';
import { WebhookDelivery } from '../events/entities/webhook-delivery.entity';
import { Webhook } from '../webhooks/entities/webhook.entity';
import { LoginAttempt } from '../sessions/entities/login-attempt.entity';
import { Session } from '../sessions/entities/session.entity';
import { IdempotencyKey } from '../idempotency/entities/idempotency-key.entity';
import { PhoneReliabilityHistory } from '../reliability/entities/phone-reliability-history.entity';

export const ENTITIES = [
  User,
  Webhook,
  WebhookDelivery,
  Setting,
  Phone,
  PhoneLimit,
  PhoneGroup,
  PhoneGroupPhone,
  Contact,
  Group,
  GroupContact,
  ConditionalGroup,
  ...MEDIA_ENTITIES,
  ...SCHEDULED_ENTITIES,
  Sended,
  Received,
  SmsStop,
  Outbox,
  SendRefusal,
  Quota,
  PhoneReliabilityHistory,
  Session,
  LoginAttempt,
  IdempotencyKey,
];
