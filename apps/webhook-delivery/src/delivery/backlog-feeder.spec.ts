import { Logger } from '@nestjs/common';
import { BacklogFeeder, FEED_AHEAD_MS } from './backlog-feeder';
import { DeliveryQueue } from './delivery-queue';
import { FakeDeliveryQueue } from './delivery-queue.fake';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe(BacklogFeeder.name, () => {
  beforeEach(() => jest.useFakeTimers({ now: NOW }));
  afterEach(() => jest.useRealTimers());

  function setup() {
    const queue = new FakeDeliveryQueue();
    const sut = new BacklogFeeder(queue as unknown as DeliveryQueue);
    const batches = () => queue.calls.map((c) => (c.call === 'queueBacklog' ? c.deliveries : []));
    return { queue, sut, batches };
  }
  /** Twenty a second, from `from` ms from now on: d0, d1, … */
  const paced = (count: number, from = 0) => Array.from({ length: count }, (_, i) => ({ id: `d${i}`, dueAt: Date.now() + from + i * 50 }));

  it('queues what is due within the first window at once, each job delayed to its turn, and each later window just before it is due', async () => {
    const { sut, batches } = setup();

    await sut.feed(paced(60));

    expect(batches()).toHaveLength(1);
    expect(batches()[0].map((d) => d.id)).toEqual(paced(21).map((d) => d.id));
    expect(batches()[0].slice(0, 3).map((d) => d.delayMs)).toEqual([0, 50, 100]);
    await jest.advanceTimersByTimeAsync(50);
    expect(batches()).toHaveLength(2);
    expect(batches()[1][0]).toEqual({ id: 'd21', delayMs: 1000 });
    await jest.advanceTimersByTimeAsync(3 * FEED_AHEAD_MS);
    expect(batches().flat().map((d) => d.id)).toEqual(paced(60).map((d) => d.id));
  });

  it('queues nothing more once the process stops (the sweep has them), and a failed window is logged, not thrown', async () => {
    const { sut, queue, batches } = setup();
    await sut.feed(paced(100, 5_000));
    expect(batches()).toEqual([]);
    sut.onApplicationShutdown();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(batches()).toEqual([]);

    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await sut.feed(paced(40, 2_000));
    queue.queueBacklog = () => Promise.reject(new Error('Redis is unreachable'));
    await jest.advanceTimersByTimeAsync(5_000);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ error: 'Redis is unreachable' }), expect.stringMatching(/left to the lost-delivery sweep/));
  });
});
