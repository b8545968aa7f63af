import { ArgumentsHost, BadRequestException, Logger, NotFoundException } from '@nestjs/common';
import { AppConfig } from '../../config/configuration';
import { ApiError, ErrorCode } from '../errors/api-error';
import { ApiExceptionFilter } from './api-exception.filter';
import { Envelope } from './envelope';

/** Runs the filter on an exception and returns the status and body it answered with. */
function answer(exception: unknown, headersSent = false): { status?: number; body?: Envelope } {
  const sent: { status?: number; body?: Envelope } = {};
  const response = {
    headersSent,
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: Envelope) {
      sent.body = body;
      return this;
    },
  };
  const request = {
    id: 'req-42',
    method: 'GET',
    path: '/api/list/phone/',
    originalUrl: '/api/list/phone/?x=1',
  };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  new ApiExceptionFilter({ basePath: '' } as AppConfig).catch(exception, host);
  return sent;
}

describe('ApiExceptionFilter', () => {
  let logged: jest.SpyInstance;

  beforeEach(() => {
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    logged.mockRestore();
  });
  it('answers an ApiError with its status and envelope', () => {
    const { status, body } = answer(ApiError.missing('text'));

    expect(status).toBe(400);
    expect(body).toEqual({
      error: ErrorCode.MISSING_PARAMETER,
      message: 'One require parameter is missing : text',
      response: null,
      next: null,
      prev: null,
    });
  });

  it('answers an unknown route as 404 INVALID_PARAMETER naming the method and path', () => {
    const { status, body } = answer(new NotFoundException());

    expect(status).toBe(404);
    expect(body?.error).toBe(ErrorCode.INVALID_PARAMETER);
    expect(body?.message).toContain('GET /api/list/phone/');
  });

  it('answers another framework client error as 400 INVALID_PARAMETER, in our words', () => {
    const { status, body } = answer(new BadRequestException('Express says bad'));

    expect(status).toBe(400);
    expect(body?.error).toBe(ErrorCode.INVALID_PARAMETER);
    expect(body?.message).toBe(
      'You have specified an invalid parameter : the request could not be read (HTTP 400).',
    );
  });

  it.each(['ECONNREFUSED', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'SQLITE_BUSY'])(
    'answers a database that cannot be reached (%s) as 503 INTERNAL_ERROR with the request id',
    (code) => {
      const { status, body } = answer(
        Object.assign(new Error(`connect ${code} 10.0.0.1:3306`), { code }),
      );

      expect(status).toBe(503);
      expect(body?.error).toBe(ErrorCode.INTERNAL_ERROR);
      expect(body?.message).toContain('Request id: req-42');
      expect(body?.message).not.toContain('10.0.0.1');
    },
  );

  it('answers any other failure as 500 INTERNAL_ERROR with the request id and no internal text', () => {
    const failure = new TypeError("Cannot read properties of undefined ('x')");
    const { status, body } = answer(failure);

    expect(logged).toHaveBeenCalledWith(
      { err: failure },
      'Unexpected failure of GET /api/list/phone/',
    );

    expect(status).toBe(500);
    expect(body?.error).toBe(ErrorCode.INTERNAL_ERROR);
    expect(body?.message).toBe(
      'Internal error. Request id: req-42; the server log holds the details.',
    );
  });

  it('leaves a response whose headers are already sent alone', () => {
    expect(answer(new Error('late'), true)).toEqual({});
  });
});
