import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { ApiRequest } from '../http/request';
import { Params } from './parse';

/**
 * All parameters of a request, merged as docs/api-choices.md#reading-parameters orders them: GET
 * reads path over query; other methods read path, then the body (form or JSON), then the query
 * string.
 */
export const RequestParams = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Params => {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    const query = request.query as Params;
    const path = request.params as Params;
    if (request.method === 'GET' || request.method === 'HEAD') {
      return { ...query, ...path };
    }
    const body: unknown = request.body;
    const form = typeof body === 'object' && body !== null ? (body as Params) : {};
    return { ...query, ...form, ...path };
  },
);
