import type { SchemaObject } from '@nestjs/swagger';

/** A UserView's properties in the OpenAPI document, for get_me and the sessions alike. */
export const USER_VIEW_PROPERTIES: Record<string, SchemaObject> = {
  id: { type: 'integer' },
  email: { type: 'string' },
  status: { type: 'string', enum: ['active'] },
  admin: { type: 'boolean' },
  created_at: { type: 'string', description: 'In the service time zone' },
};
