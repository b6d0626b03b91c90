import Fastify from 'fastify';
import { currentRequestId } from '@aas/platform';
import { bindRequestContext } from './request-id';

describe(bindRequestContext.name, () => {
  it('runs a route as part of its request, with or without a body, and through what it awaits', async () => {
    let ids = 0;
    const app = Fastify({ genReqId: () => `req-${++ids}` });
    bindRequestContext(app);
    const seen: (string | undefined)[] = [];
    app.all('/things', async () => {
      seen.push(currentRequestId());
      await new Promise((resolve) => setTimeout(resolve, 1));
      seen.push(currentRequestId());
      return {};
    });
    await app.inject({ method: 'GET', url: '/things' });
    await app.inject({ method: 'POST', url: '/things', payload: { a: 1 } });
    expect(seen).toEqual(['req-1', 'req-1', 'req-2', 'req-2']);
    expect(currentRequestId()).toBeUndefined();
  });
});
