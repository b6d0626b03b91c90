import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ProblemDetailsFilter, ResourceNotFoundError } from '@aas/problem-details';
import Redis from 'ioredis';
import { firstValueFrom } from 'rxjs';
import { isolatedInfra } from '../../../test/support/isolated-infra';
import { RedisStreamsClient } from './redis-streams.client';
import { RedisStreamsServer } from './redis-streams.server';
import { decodeRequest, encodeRequest } from './rpc-message';
import { requestStreamKey } from './stream-keys';

const infra = isolatedInfra();
const handled: { replica: number; n: number }[] = [];

function handlersFor(replica: number) {
  @Controller()
  class CountingHandlers {
    @MessagePattern('counter.items.handle')
    async handle(@Payload() data: { n: number }) {
      handled.push({ replica, n: data.n });
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { n: data.n, replica };
    }

    @MessagePattern('counter.items.slow')
    async slow(@Payload() data: { ms: number }) {
      await new Promise((resolve) => setTimeout(resolve, data.ms));
      return { replica };
    }

    @MessagePattern('counter.items.nothing')
    nothing(): void {}

    @MessagePattern('counter.items.missing')
    missing(): never {
      throw new ResourceNotFoundError('Item', '42');
    }
  }
  @Module({ controllers: [CountingHandlers] })
  class CounterModule {}
  return CounterModule;
}

async function startReplica(replica: number): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(handlersFor(replica), {
    strategy: new RedisStreamsServer({ url: infra.redisUrl, prefix: infra.redisPrefix, service: 'counter', blockMs: 200 }),
    logger: false,
  });
  app.useGlobalFilters(new ProblemDetailsFilter());
  await app.listen();
  return app;
}

function client(timeoutMs: number): RedisStreamsClient {
  return new RedisStreamsClient({ url: infra.redisUrl, prefix: infra.redisPrefix, timeoutMs });
}

describe(RedisStreamsServer.name, () => {
  const open: { close(): unknown }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((x) => x.close()));
    handled.length = 0;
  });
  afterAll(() => infra.dispose());

  it('never runs a request whose caller already gave up', async () => {
    const sut = client(300);
    open.push(sut);
    const failed = firstValueFrom(sut.request('counter.items.handle', { n: 1 })).catch((e: unknown) => e);
    expect(await failed).toMatchObject({ status: 504, type: 'urn:aas:problem:gateway-timeout' });

    open.push(await startReplica(1));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(handled).toEqual([]);
  });

  it('hands each request to exactly one of two replicas', async () => {
    open.push(await startReplica(1), await startReplica(2));
    const sut = client(10_000);
    open.push(sut);
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, n) => firstValueFrom(sut.request<{ n: number; replica: number }>('counter.items.handle', { n }))),
    );
    expect(replies.map((r) => r.n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    expect(handled).toHaveLength(200);
    expect(new Set(handled.map((h) => h.n)).size).toBe(200);
    const byReplica = new Set(handled.map((h) => h.replica));
    expect(byReplica).toEqual(new Set([1, 2]));
  });

  it('carries a domain error to the caller as its Problem Details', async () => {
    open.push(await startReplica(1));
    const sut = client(5_000);
    open.push(sut);
    const error = await firstValueFrom(sut.request('counter.items.missing', {})).catch((e: unknown) => e);
    expect(error).toEqual({
      type: 'urn:aas:problem:not-found',
      title: 'Not Found',
      status: 404,
      detail: 'Item 42 not found',
    });
  });

  it('answers 503 at once for a request taken by a replica that died, and never runs it', async () => {
    const first = await startReplica(1);
    await first.close(); // the consumer group exists; no replica is up
    const sut = client(10_000);
    open.push(sut);
    const started = Date.now();
    const answer = firstValueFrom(sut.request('counter.items.handle', { n: 7 })).catch((e: unknown) => e);
    // A replica that reads the request and dies: it never answers and never refreshes a liveness key.
    const dead = new Redis(infra.redisUrl);
    const stream = requestStreamKey(infra.redisPrefix, 'counter');
    let taken: unknown = null;
    while (!taken) taken = await dead.xreadgroup('GROUP', 'counter', 'dead-replica', 'COUNT', 1, 'STREAMS', stream, '>');
    dead.disconnect();

    open.push(await startReplica(2));
    expect(await answer).toMatchObject({ status: 503, type: 'urn:aas:problem:service-unavailable' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(handled).toEqual([]);
  });

  it('leaves a slow request to the live replica handling it', async () => {
    open.push(await startReplica(1), await startReplica(2));
    const sut = client(10_000);
    open.push(sut);
    const replies = await Promise.all(Array.from({ length: 4 }, () => firstValueFrom(sut.request<{ replica: number }>('counter.items.slow', { ms: 3000 }))));
    expect(replies.every((r) => r.replica === 1 || r.replica === 2)).toBe(true);
  });

  it('answers 504 when no replica is running', async () => {
    const sut = client(400);
    open.push(sut);
    const started = Date.now();
    const error = await firstValueFrom(sut.request('nobody.things.do', {})).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 504 });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
  it('gives a response as the JSON text the service sent when asked to, and errors as Problem Details either way', async () => {
    open.push(await startReplica(1));
    const sut = client(10_000);
    open.push(sut);
    const json = await firstValueFrom(sut.request<string>('counter.items.handle', { n: 7 }, {}, true));
    expect(json).toBe('{"n":7,"replica":1}');
    for (const asJson of [true, false]) {
      const failed = await firstValueFrom(sut.request('counter.items.missing', {}, {}, asJson)).catch((e: unknown) => e);
      expect(failed).toMatchObject({ status: 404, type: 'urn:aas:problem:not-found' });
    }
  });

  it('answers through call() as through request(): the response, its JSON text, null for none, Problem Details for errors', async () => {
    open.push(await startReplica(1));
    const sut = client(10_000);
    open.push(sut);
    expect(await sut.call('counter.items.handle', { n: 5 })).toEqual({ n: 5, replica: 1 });
    expect(await sut.call('counter.items.handle', { n: 6 }, {}, true)).toBe('{"n":6,"replica":1}');
    expect(await sut.call('counter.items.nothing', {})).toBeNull();
    for (const asJson of [true, false]) {
      const failed = await sut.call('counter.items.missing', {}, {}, asJson).catch((e: unknown) => e);
      expect(failed).toMatchObject({ status: 404, type: 'urn:aas:problem:not-found' });
    }
  });

  it('answers a client from before reply fields (no format field) with one reply envelope', async () => {
    open.push(await startReplica(1));
    const redis = new Redis(infra.redisUrl);
    open.push({ close: () => redis.quit() });
    const replyTo = `${infra.redisPrefix}:rpc:reply:old-client`;
    const request = { id: 'old-1', pattern: 'counter.items.handle', data: { n: 3 }, metadata: {}, replyTo, deadline: Date.now() + 10_000 };
    await redis.xadd(requestStreamKey(infra.redisPrefix, 'counter'), '*', ...encodeRequest(request));
    const result = (await redis.xread('BLOCK', 5000, 'STREAMS', replyTo, '0')) as [string, [string, string[]][]][];
    const [[, fields]] = result[0][1];
    expect(fields[0]).toBe('reply');
    expect(JSON.parse(fields[1])).toEqual({ id: 'old-1', err: null, response: { n: 3, replica: 1 } });
  });
  it('answers a malformed reply with 503, and goes on reading the replies after it', async () => {
    open.push(await startReplica(1));
    const sut = client(10_000);
    const redis = new Redis(infra.redisUrl);
    open.push(sut, { close: () => redis.quit() });
    const failed = firstValueFrom(sut.request('impostor.items.answer', {})).catch((e: unknown) => e);
    const read = (await redis.xread('BLOCK', 5000, 'STREAMS', requestStreamKey(infra.redisPrefix, 'impostor'), '0')) as [string, [string, string[]][]][];
    const request = decodeRequest(read[0][1][0][1])!;
    await redis.xadd(request.replyTo, '*', 'id', request.id, 'response', '{"n":');
    expect(await failed).toMatchObject({ status: 503 });
    expect(await firstValueFrom(sut.request('counter.items.handle', { n: 1 }))).toEqual({ n: 1, replica: 1 });
  });
});
