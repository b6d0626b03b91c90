import 'reflect-metadata';
import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProblemDetailsFilter, createValidationPipe } from '@aas/problem-details';
import { IsOptional, IsString } from 'class-validator';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { MAX_JSON_DEPTH, checkBody, exceedsDepth, installBodyChecks, problemFastifyOptions } from './http-hardening';

class EchoBody {
  @IsOptional()
  @IsString()
  name?: string;
}

@Controller('things')
class ThingsController {
  @Post()
  create(@Body() body: EchoBody): EchoBody {
    return body;
  }

  @Post('ping')
  ping(): { ok: true } {
    return { ok: true };
  }

  @Get(':id')
  get(@Param('id') id: string): { id: string } {
    return { id };
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

/** A gateway-shaped app: the hardening, the one Problem Details filter and the validation pipe. */
async function startApp(): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ ...problemFastifyOptions, logger: false });
  // As the gateway does: every answer carries its request id.
  adapter.getInstance().addHook('onRequest', async (request, reply) => void reply.header('x-request-id', request.id));
  installBodyChecks(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(ThingsModule, adapter, { logger: false });
  app.useGlobalFilters(new ProblemDetailsFilter());
  app.useGlobalPipes(createValidationPipe());
  await app.listen(0, '127.0.0.1');
  return app;
}

describe('http hardening', () => {
  let sut: NestFastifyApplication;

  beforeAll(async () => {
    sut = await startApp();
  });
  afterAll(() => sut.close());

  const inject = (options: { method: 'GET' | 'POST'; url: string; payload?: string; headers?: Record<string, string> }) =>
    sut.getHttpAdapter().getInstance().inject(options);

  function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, type: string): void {
    expect(res.statusCode).toBe(status);
    expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ type: `urn:aas:problem:${type}`, status, detail: expect.any(String) });
    expect(body.request_id).toBe(res.headers['x-request-id']);
  }

  it('answers a JSON body nested thousands deep with a 400, not a stack overflow', async () => {
    const deep = '{"name":' + '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000) + '}';
    const res = await inject({ method: 'POST', url: '/things', payload: deep, headers: { 'content-type': 'application/json' } });
    expectProblem(res, 400, 'malformed-request');
    expect(JSON.parse(res.body).detail).toContain(String(MAX_JSON_DEPTH));
  });

  it.each(['null', '[]', '[{}]', '42', '"x"', 'true'])('answers the JSON body %s (not an object) with a 400', async (payload) => {
    const res = await inject({ method: 'POST', url: '/things', payload, headers: { 'content-type': 'application/json' } });
    expectProblem(res, 400, 'malformed-request');
  });

  it.each([
    ['text/plain', '{"name":"x"}'],
    ['application/x-www-form-urlencoded', 'name=x'],
  ])('answers a %s body with a 415, also where the route takes no body', async (type, payload) => {
    for (const url of ['/things', '/things/ping']) {
      const res = await inject({ method: 'POST', url, payload, headers: { 'content-type': type } });
      expectProblem(res, 415, 'unsupported-media-type');
    }
  });

  it('still takes a JSON object, with or without a charset, and requests without a body', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON']) {
      const res = await inject({ method: 'POST', url: '/things', payload: '{"name":"x"}', headers: { 'content-type': type } });
      expect(res.statusCode).toBe(201);
      expect(JSON.parse(res.body)).toEqual({ name: 'x' });
    }
    expect((await inject({ method: 'POST', url: '/things/ping' })).statusCode).toBe(201);
  });

  it('answers a URL that is not valid percent-encoded UTF-8 with a 400 Problem', async () => {
    for (const url of ['/things/%zz', '/things/%C0%AF', '/things/abc%']) {
      expectProblem(await inject({ method: 'GET', url }), 400, 'malformed-request');
    }
  });

  it('answers a path id longer than any id with a 404 Problem, as any id that names nothing', async () => {
    expectProblem(await inject({ method: 'GET', url: `/things/${'a'.repeat(2000)}` }), 404, 'not-found');
  });

  it('answers headers over the parser limit with a 431 Problem on the socket', async () => {
    const { port } = sut.getHttpServer().address() as AddressInfo;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`GET /things/1 HTTP/1.1\r\nHost: x\r\nx-api-key: ${'k'.repeat(20 * 1024)}\r\n\r\n`);
      });
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('utf8')));
      socket.on('close', () => resolve(received));
      socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(received) : reject(error)));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(raw).toMatch(/content-type: application\/problem\+json/i);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ status: 431, title: 'Request Header Fields Too Large', type: 'urn:aas:problem:malformed-request' });
    expect(raw).toContain(`x-request-id: ${body.request_id}`);
  });
});

describe(checkBody.name, () => {
  it('lets a request without a body through', () => {
    expect(() => checkBody(undefined, undefined)).not.toThrow();
  });

  it('measures depth without recursion', () => {
    let deep: object = {};
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    expect(exceedsDepth(deep, MAX_JSON_DEPTH)).toBe(true);
    expect(exceedsDepth({ plan_steps: [{ tools: ['x'] }] }, MAX_JSON_DEPTH)).toBe(false);
  });
});
