import { Controller, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern } from '@nestjs/microservices';
import { RedisStreamsServer } from './redis-streams.server';

@Controller()
class ItemHandlers {
  @MessagePattern('shop.items.get')
  get(): string {
    return 'item';
  }
}

@Controller()
class OtherItemHandlers {
  @MessagePattern('shop.items.get')
  get(): string {
    return 'another item';
  }
}

function moduleOf(...controllers: Type[]): Type {
  @Module({ controllers })
  class ShopModule {}
  return ShopModule;
}

/** Listens with an address nothing answers on: every case here fails before it connects to Redis. */
async function listen(module: Type, servedPatterns: string[]): Promise<void> {
  const app = await NestFactory.createMicroservice(module, {
    strategy: new RedisStreamsServer({ url: 'redis://127.0.0.1:1', prefix: 'unused', service: 'shop', servedPatterns }),
    logger: false,
    abortOnError: false,
  });
  try {
    await app.listen();
  } finally {
    await app.close().catch(() => undefined);
  }
}

describe('a service that does not answer exactly the patterns it serves does not start', () => {
  it('refuses a served pattern without a handler', async () => {
    await expect(listen(moduleOf(ItemHandlers), ['shop.items.get', 'shop.items.list'])).rejects.toThrow('shop: no handler for shop.items.list');
  });

  it('refuses a handler of a pattern it does not serve', async () => {
    await expect(listen(moduleOf(ItemHandlers), [])).rejects.toThrow('shop: handlers for patterns it does not serve: shop.items.get');
  });

  it('refuses two handlers of one pattern', async () => {
    await expect(listen(moduleOf(ItemHandlers, OtherItemHandlers), ['shop.items.get'])).rejects.toThrow(
      'shop: the message pattern shop.items.get has two handlers',
    );
  });
});
