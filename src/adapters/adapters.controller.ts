import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { AdaptersService, AdapterView } from './adapters.service';

const ADAPTER: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The value of `adapter` in post_phone', example: 'twilio' },
    alias: {
      type: 'string',
      nullable: true,
      description: 'The RaspiSMS class name, accepted as `adapter` too',
      example: 'adapters\\TwilioVirtualNumberAdapter',
    },
    name: { type: 'string' },
    description: { type: 'string' },
    hide_data: {
      type: 'boolean',
      description: "get_entries leaves the phones' adapter_data out for this adapter",
    },
    fields: {
      type: 'array',
      description: 'The fields of `adapter_data`, in order',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          description: { type: 'string' },
          required: { type: 'boolean' },
          secret: {
            type: 'boolean',
            description: 'Stored encrypted and never listed; an update leaving it out keeps it',
          },
          number: { type: 'boolean', description: 'A phone number, stored in E.164' },
        },
      },
    },
    capabilities: {
      type: 'object',
      properties: {
        flash: { type: 'boolean', description: 'Sends flash SMS' },
        mms: { type: 'boolean', description: 'Sends medias as MMS, else as links in the text' },
      },
    },
  },
};

/** get_adapters (docs/api.md#get_adapters). */
@ApiTags('adapters')
@Controller('api/adapter')
export class AdaptersController {
  constructor(private readonly adapters: AdaptersService) {}

  @Get()
  @ApiOperation({
    operationId: 'get_adapters',
    summary:
      'get_adapters: every adapter a phone can use, with the fields of its adapter_data and ' +
      'its capabilities.',
  })
  @ApiEnvelopeResponse({ type: 'array', items: ADAPTER }, "The adapters, in the server's order")
  list(): AdapterView[] {
    return this.adapters.list();
  }
}
