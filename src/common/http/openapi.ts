import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';

/** The envelope around `response` (docs/api.md#envelope), for the OpenAPI document. */
export function envelopeSchema(response: SchemaObject): SchemaObject {
  return {
    type: 'object',
    required: ['error', 'message', 'response', 'next', 'prev'],
    properties: {
      error: { type: 'integer', description: '0 on success, else an error code', example: 0 },
      message: { type: 'string', nullable: true, description: 'Why the request failed' },
      response: { ...response, nullable: true },
      next: { type: 'string', nullable: true, description: 'URL of the next page' },
      prev: { type: 'string', nullable: true, description: 'URL of the previous page' },
    },
  };
}

const ERROR_RESPONSES: Array<[number, string]> = [
  [400, 'Invalid (error 2) or missing (error 4) parameter'],
  [401, 'No user identified by the API key (error 1)'],
  [403, 'The user is suspended (error 16)'],
  [500, 'Unexpected failure (error 256, with a request id)'],
];

/** Documents a success envelope carrying `response`, and the error envelopes every route shares. */
export function ApiEnvelopeResponse(
  response: SchemaObject,
  description: string,
  status = 200,
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiResponse({ status, description, schema: envelopeSchema(response) }),
    ...ERROR_RESPONSES.map(([code, text]) =>
      ApiResponse({ status: code, description: text, schema: envelopeSchema({ type: 'object' }) }),
    ),
  );
}
