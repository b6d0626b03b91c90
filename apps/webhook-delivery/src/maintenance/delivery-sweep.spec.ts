import { DeliveryEntity } from '../database/delivery.entity';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { FakeDeliveryQueue } from '../delivery/delivery-queue.fake';
import { DeliverySweep, OVERDUE_MARGIN_MS } from './delivery-sweep';
import { FakeLostDeliveryStore } from './lost-delivery.store.fake';

const MINUTE = 60_000;

describe(DeliverySweep.name, () => {
  function setup() {
    const db = new InMemoryDatabase();
    const queue = new FakeDeliveryQueue();
    const sut = new DeliverySweep(new FakeLostDeliveryStore(db), queue as unknown as DeliveryQueue);
    const webhook = db.addWebhook();
    const ago = (minutes: number) => new Date(db.now().getTime() - minutes * MINUTE);
    /** A delivery created `createdMinutesAgo`, next due `dueMinutesAgo` ago (null: never attempted; negative: ahead). */
    const delivery = (createdMinutesAgo: number, dueMinutesAgo: number | null = null, fields: Partial<DeliveryEntity> = {}) =>
      db.addDelivery(webhook.id, { createdAt: ago(createdMinutesAgo), nextAttemptAt: dueMinutesAgo === null ? null : ago(dueMinutesAgo), ...fields }).id;
    const requeued = () => queue.calls.filter((c) => c.call === 'ensureQueued').map((c) => (c.call === 'ensureQueued' ? c.id : ''));
    return { db, queue, sut, delivery, requeued };
  }

  it('queues again the pending deliveries due more than the margin ago, by their next attempt or else their creation', async () => {
    const { sut, delivery, requeued } = setup();
    const lost = delivery(10);
    const lostRetry = delivery(60, 20);
    delivery(2);
    delivery(60, -30);
    delivery(60, 10, { status: 'succeeded' });
    delivery(60, null, { status: 'failed' });

    expect(await sut.requeueLost()).toBe(2);
    expect(requeued()).toEqual([lostRetry, lost]);
  });

  it('leaves a delivery whose job is live to it, and does not count it', async () => {
    const { queue, sut, delivery, requeued } = setup();
    const waiting = delivery(20);
    const lost = delivery(30);
    queue.live.add(waiting);

    expect(await sut.requeueLost()).toBe(1);
    expect(requeued()).toEqual([lost, waiting]);
    expect(queue.live).toEqual(new Set([waiting, lost]));
  });

  it('reads in batches in due order until one comes back short, each delivery once, and stops between batches when told to', async () => {
    const { sut, delivery, requeued } = setup();
    const lost = Array.from({ length: 25 }, (_, i) => delivery(100 - i));

    expect(await sut.requeueLost(() => true, 10)).toBe(10);
    expect(requeued()).toEqual(lost.slice(0, 10));
    expect(await sut.requeueLost(() => false, 10)).toBe(15);
    expect(requeued().slice(10)).toEqual(lost);
    // Every one has a live job now.
    expect(await sut.requeueLost()).toBe(0);
  });

  it('takes deliveries due at the same instant in id order, none skipped across a batch boundary', async () => {
    const { db, sut, delivery, requeued } = setup();
    const due = new Date(db.now().getTime() - OVERDUE_MARGIN_MS - MINUTE);
    const ids = Array.from({ length: 7 }, () => delivery(30, null, { nextAttemptAt: due })).sort();

    expect(await sut.requeueLost(() => false, 3)).toBe(7);
    expect(requeued()).toEqual(ids);
  });
});
