import { applyDecorators } from '@nestjs/common';
import { ApiConsumes, ApiResponse } from '@nestjs/swagger';
import type { HeadersObject, SchemaObject } from '@nestjs/swagger';
import { ErrorCode } from '../errors/api-error';
import { MAX_LIST_IDS } from '../params/id-list';

/** The envelope around `response` (docs/api.md#envelope), for the OpenAPI document. */
export function envelopeSchema(response: SchemaObject): SchemaObject {
  return {
    type: 'object',
    required: ['error', 'message', 'response', 'next', 'prev'],
    properties: {
      error: { type: 'integer', description: '0 on success, else an error code', example: 0 },
      message: { type: 'string', nullable: true, description: 'Why the request failed' },
      response: { ...everyMemberRequired(response), nullable: true },
      next: { type: 'string', nullable: true, description: 'URL of the next page' },
      prev: { type: 'string', nullable: true, description: 'URL of the previous page' },
    },
  };
}

/**
 * The schema with every object's listed members required, where it does not say otherwise: an
 * answer always carries its members (null when they have no value), so the conformance test
 * catches one that goes missing and the console's generated types do not make them optional.
 */
function everyMemberRequired(schema: SchemaObject): SchemaObject {
  const result: SchemaObject = { ...schema };
  if (schema.properties) {
    result.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, member]) => [
        name,
        '$ref' in member ? member : everyMemberRequired(member),
      ]),
    );
    result.required = schema.required ?? Object.keys(schema.properties);
  }
  if (schema.items && !('$ref' in schema.items)) {
    result.items = everyMemberRequired(schema.items);
  }
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const variants = schema[key];
    if (variants) {
      result[key] = variants.map((variant) =>
        '$ref' in variant ? variant : everyMemberRequired(variant),
      );
    }
  }
  return result;
}

const ERROR_RESPONSES: Array<[number, string]> = [
  [400, 'Invalid (error 2) or missing (error 4) parameter'],
  [401, 'No user identified by the API key (error 1)'],
  [403, 'The user is suspended (error 16)'],
  [500, 'Unexpected failure (error 256, with a request id)'],
];

/**
 * Documents a success envelope carrying `response` (with the response `headers` it may carry),
 * and the error envelopes every route shares.
 */
export function ApiEnvelopeResponse(
  response: SchemaObject,
  description: string,
  status = 200,
  headers?: HeadersObject,
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiResponse({ status, description, schema: envelopeSchema(response), headers }),
    ...ERROR_RESPONSES.map(([code, text]) =>
      ApiResponse({ status: code, description: text, schema: envelopeSchema({ type: 'object' }) }),
    ),
  );
}

/** The bodies a write operation reads, besides its query (docs/api-choices.md). */
export const API_BODY_TYPES = ApiConsumes(
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/json',
);

/** Documents an error envelope answered with `status`. */
export function ApiErrorResponse(status: number, description: string): MethodDecorator {
  return ApiResponse({ status, description, schema: envelopeSchema({ type: 'object' }) });
}

/** The 404 of an id that is not one of the caller's `noun`s, whoever's entry it may be. */
export function ApiNotFoundResponse(code: ErrorCode, noun: string): MethodDecorator {
  return ApiErrorResponse(
    404,
    `No such ${noun} (error ${code}); the same for another user's ${noun}`,
  );
}

/** A parameter taking a list of ids, at most MAX_LIST_IDS of them. */
export function idListSchema(description: string): SchemaObject {
  return {
    type: 'array',
    maxItems: MAX_LIST_IDS,
    items: { type: 'integer', minimum: 0 },
    description,
  };
}

/** The first properties of a group, of contacts or of phones, as get_entries lists it. */
export const GROUP_ENTRY_PROPERTIES: Record<string, SchemaObject> = {
  id: { type: 'integer' },
  id_user: { type: 'integer' },
  name: { type: 'string' },
  created_at: { type: 'string', example: '2030-01-31 08:30:00' },
  updated_at: { type: 'string', nullable: true },
};

/**
 * A contact as get_entries lists it; get_contact, a group's members and the contacts a
 * conditional group selects are answered in the same shape.
 */
export const CONTACT_ENTRY: SchemaObject = {
  type: 'object',
  required: ['id', 'id_user', 'name', 'number', 'data', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    id_user: { type: 'integer' },
    name: { type: 'string' },
    number: { type: 'string', example: '+33612345678' },
    data: {
      type: 'string',
      nullable: true,
      example: '{"firstname":"John"}',
      description: 'A JSON object, as stored',
    },
    created_at: { type: 'string', example: '2030-01-31 08:30:00' },
    updated_at: { type: 'string', nullable: true },
  },
};
