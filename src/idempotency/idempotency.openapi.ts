import { applyDecorators } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { HeadersObject, SchemaObject } from '@nestjs/swagger';
import { REPLAYED_HEADER } from '../common/http/envelope';
import { IDEMPOTENCY_HEADER } from './idempotency.params';

const KEY_DESCRIPTION =
  'Idempotency key, 1 to 255 printable ASCII characters: a request repeated with the same key ' +
  'and parameters within IDEMPOTENCY_HOURS creates nothing and gets the first answer again';

/** The `Idempotency-Key` header of an operation (the parameter `idempotency_key` is its other way). */
export const ApiIdempotencyKey = (): MethodDecorator =>
  applyDecorators(
    ApiHeader({
      name: IDEMPOTENCY_HEADER,
      required: false,
      description: `${KEY_DESCRIPTION}; wins over idempotency_key`,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    }),
  );

/** The parameter `idempotency_key`, as a body or query schema lists it. */
export const IDEMPOTENCY_KEY_PARAMETER: SchemaObject = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: `${KEY_DESCRIPTION}; the header ${IDEMPOTENCY_HEADER} wins over it`,
};

/** The header of a success answer given again for a repeated key. */
export const REPLAYED_HEADERS: HeadersObject = {
  [REPLAYED_HEADER]: {
    description: '`true` when this is the kept answer of an earlier request with the same key',
    schema: { type: 'string', enum: ['true'] },
  },
};
