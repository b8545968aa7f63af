import type { OpenAPIObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { AdapterDataField, AdapterDescriptor } from '../adapters/adapter.descriptor';

/** The operations whose body names an adapter and its data, and whether they require fields. */
const PHONE_OPERATIONS: Readonly<Record<string, { requiresFields: boolean }>> = {
  post_phone: { requiresFields: true },
  // With the same adapter, a required field or a secret left out keeps its stored value.
  post_update_phone: { requiresFields: false },
};

/**
 * Describes `adapter` and `adapter_data` of the phone operations from the adapters' descriptors
 * (docs/adapters.md#descriptor): the decorators run before the registry exists, and a list
 * written by hand would forget the next provider.
 */
export function describeAdapters(
  document: OpenAPIObject,
  descriptors: readonly AdapterDescriptor[],
): void {
  for (const { post: operation } of Object.values(document.paths)) {
    const options = operation?.operationId && PHONE_OPERATIONS[operation.operationId];
    const body = operation?.requestBody;
    if (!options || !body || isReference(body)) {
      continue;
    }
    for (const media of Object.values(body.content)) {
      const properties = media.schema && !isReference(media.schema) && media.schema.properties;
      if (properties) {
        properties.adapter = adapterSchema(descriptors);
        properties.adapter_data = adapterDataSchema(descriptors, options.requiresFields);
      }
    }
  }
}

function isReference(value: object): value is ReferenceObject {
  return '$ref' in value;
}

function adapterSchema(descriptors: readonly AdapterDescriptor[]): SchemaObject {
  const aliases = descriptors
    .filter((descriptor) => descriptor.alias)
    .map((descriptor) => `\`${descriptor.alias}\` for ${descriptor.id}`);
  return {
    type: 'string',
    enum: descriptors.map((descriptor) => descriptor.id),
    description:
      "The adapter's id. RaspiSMS class names are accepted too, with or without PHP's leading " +
      `backslash: ${aliases.join(', ')}.`,
    example: descriptors[0]?.id,
  };
}

function adapterDataSchema(
  descriptors: readonly AdapterDescriptor[],
  requiresFields: boolean,
): SchemaObject {
  return {
    type: 'object',
    description:
      'The data of the adapter named by `adapter`: its schema is the one below titled with its ' +
      'id. Sent in bracket form (`adapter_data[login]=…`), as a JSON object, or as a JSON object ' +
      'in a string. A field the adapter does not have is refused. Secret fields (writeOnly) are ' +
      'stored encrypted and never listed.' +
      (requiresFields
        ? ''
        : ' With the same adapter, a required field or a secret field left out keeps its stored ' +
          'value.'),
    anyOf: descriptors.map((descriptor) => {
      const required = descriptor.fields.filter((field) => field.required);
      return {
        title: descriptor.id,
        description: `${descriptor.name}: ${descriptor.description}`,
        type: 'object',
        additionalProperties: false,
        properties: Object.fromEntries(
          descriptor.fields.map((field) => [field.name, fieldSchema(field)]),
        ),
        ...(requiresFields && required.length > 0
          ? { required: required.map((field) => field.name) }
          : {}),
      };
    }),
  };
}

function fieldSchema(field: AdapterDataField): SchemaObject {
  const notes = [
    field.number ? 'A phone number, stored in E.164.' : '',
    field.secret ? 'Secret: stored encrypted, never listed.' : '',
  ].filter(Boolean);
  return {
    type: 'string',
    description: [field.description, ...notes].join(' '),
    ...(field.secret ? { writeOnly: true, format: 'password' } : {}),
  };
}
