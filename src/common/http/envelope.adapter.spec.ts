import { Controller, Get, HttpCode, INestApplication, Module, Post, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Response } from 'express';
import request from 'supertest';
import { EnvelopeExpressAdapter } from './envelope.adapter';
import { Paged, Replayed } from './envelope';

@Controller()
class ResultsController {
  @Get('number')
  number(): Promise<number> {
    return Promise.resolve(42);
  }

  @Get('list')
  list(): Array<{ id: number }> {
    return [{ id: 1 }];
  }

  @Get('nothing')
  nothing(): void {}

  @Get('page')
  page(): Paged<number> {
    return new Paged([1, 2], '/next', null);
  }

  @Post('created')
  @HttpCode(201)
  created(): boolean {
    return true;
  }

  @Post('replayed')
  @HttpCode(200)
  replayed(): Replayed {
    return new Replayed(201, { error: 0, message: null, response: 7, next: null, prev: null });
  }

  @Get('own')
  own(@Res() response: Response): void {
    response.status(200).type('text/plain').send('OK');
  }
}

@Module({ controllers: [ResultsController] })
class ResultsModule {}

describe('EnvelopeExpressAdapter, under a real Nest application', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await NestFactory.create(ResultsModule, new EnvelopeExpressAdapter(), {
      logger: false,
    });
    await app.init();
  });
  afterAll(async () => {
    await app.close();
  });

  const envelope = (response: unknown, next: string | null = null, prev: string | null = null) => ({
    error: 0,
    message: null,
    response,
    next,
    prev,
  });

  it.each([
    ['/number', 42],
    ['/list', [{ id: 1 }]],
    ['/nothing', null],
  ])('answers GET %s with the result in the success envelope', async (path, result) => {
    const response = await request(app.getHttpServer()).get(path).expect(200);

    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.text).toBe(JSON.stringify(envelope(result)));
  });

  it('puts the links of a page in next and prev', async () => {
    const response = await request(app.getHttpServer()).get('/page').expect(200);

    expect(response.body).toEqual(envelope([1, 2], '/next', null));
  });

  it('keeps the status of the operation', async () => {
    const response = await request(app.getHttpServer()).post('/created').expect(201);

    expect(response.body).toEqual(envelope(true));
  });

  it('gives a kept answer again as it was, with its status and the Idempotent-Replayed header', async () => {
    const response = await request(app.getHttpServer()).post('/replayed').expect(201);

    expect(response.headers['idempotent-replayed']).toBe('true');
    expect(response.text).toBe(JSON.stringify(envelope(7)));
  });

  it('leaves alone a response the handler writes itself', async () => {
    const response = await request(app.getHttpServer()).get('/own').expect(200);

    expect(response.text).toBe('OK');
  });

  it('wraps nothing that Nest answers with an error status', async () => {
    const response = await request(app.getHttpServer()).get('/no-such-route').expect(404);

    expect(response.body).not.toHaveProperty('error', 0);
    expect(response.body).toHaveProperty('statusCode', 404);
  });
});
