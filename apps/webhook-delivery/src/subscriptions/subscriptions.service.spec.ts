import { randomUUID } from 'node:crypto';
import { CreateWebhookMessage } from '@aas/contracts';
import { SecretBox } from '@aas/platform';
import { QuotaExceededError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { FakeOwnedAgents } from '../agents/owned-agents.fake';
import { OwnedAgents } from '../agents/owned-agents';
import { fakeWebhooksConfig } from '../config/webhooks-config.fake';
import { WebhooksEnv } from '../config/webhooks.env';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { EndpointGate } from '../fairness/endpoint-gate';
import { FakeEndpointGate } from '../fairness/endpoint-gate.fake';
import { FakeHostLookup } from '../outbound/host-lookup.fake';
import { WebhookUrlCheck } from '../outbound/webhook-url-check';
import { SigningSecrets } from '../signing/signing-secrets';
import { SubscriptionsService } from './subscriptions.service';
import { WebhookQuota } from './webhook-quota';
import { FakeWebhookStore } from './webhook.store.fake';

const KEY = Buffer.alloc(32, 3).toString('base64');

describe(SubscriptionsService.name, () => {
  function setup(settings: Partial<WebhooksEnv> = {}) {
    const db = new InMemoryDatabase();
    const store = new FakeWebhookStore(db);
    const agents = new FakeOwnedAgents();
    const box = new SecretBox(KEY);
    const config = fakeWebhooksConfig(settings);
    const quota = new WebhookQuota(store, config);
    const hosts = new FakeHostLookup();
    const gate = new FakeEndpointGate();
    const urls = new WebhookUrlCheck(hosts, config);
    const sut = new SubscriptionsService(store, db.transactions, agents as unknown as OwnedAgents, new SigningSecrets(box), quota, urls, gate as unknown as EndpointGate);
    const [user, agent] = [randomUUID(), randomUUID()];
    agents.own(user, agent);
    const create = (fields: Partial<CreateWebhookMessage> = {}) =>
      sut.create({ user_id: user, agent_id: agent, url: 'https://receiver.example.com/hook', events: ['run.completed'], ...fields } as CreateWebhookMessage);
    return { db, store, agents, box, hosts, gate, sut, user, agent, create };
  }

  describe('create', () => {
    it('answers the signing secret once and stores it only sealed', async () => {
      const { db, box, create } = setup();
      const created = await create();
      expect(created.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const [stored] = db.tables.webhooks;
      expect(stored).toMatchObject({ id: created.webhook_id, status: 'active', agentGeneration: '1', events: ['run.completed'] });
      expect(JSON.stringify(db.tables)).not.toContain(created.signing_secret);
      expect(box.open(stored.secretSealed)).toBe(created.signing_secret);
    });

    it('refuses a URL the SSRF rules refuse as a validation error on url, and stores nothing', async () => {
      const { db, create } = setup();
      for (const url of ['ftp://receiver.example.com/hook', 'https://user:pw@receiver.example.com/', 'https://receiver.example.com/#x', 'not a url']) {
        const refused = create({ url });
        await expect(refused).rejects.toBeInstanceOf(ValidationFailedError);
        await expect(refused).rejects.toMatchObject({ errors: [{ field: 'url' }] });
      }
      expect(db.tables.webhooks).toEqual([]);
    });

    it.each([
      ['http://127.0.0.1:4599/hook', /127\.0\.0\.1 is not a public address; this installation does not call loopback, private/],
      ['http://10.1.2.3/hook', /10\.1\.2\.3 is not a public address/],
      ['http://169.254.169.254/latest', /169\.254\.169\.254 is not a public address/],
      ['http://[::1]:8080/hook', /::1 is not a public address/],
      ['http://internal.example.com/hook', /the host internal\.example\.com resolves to 10\.0\.0\.7, which is not a public address/],
      ['http://mixed.example.com/hook', /the host mixed\.example\.com resolves to 192\.168\.0\.2/],
    ])('refuses %s, which this installation would refuse to call, saying why, and stores nothing', async (url, why) => {
      const { db, hosts, create } = setup();
      hosts.names.set('internal.example.com', ['10.0.0.7']);
      hosts.names.set('mixed.example.com', ['93.184.216.34', '192.168.0.2']);
      const refused = create({ url });
      await expect(refused).rejects.toBeInstanceOf(ValidationFailedError);
      await expect(refused).rejects.toMatchObject({ message: expect.stringMatching(why), errors: [{ field: 'url', message: expect.stringMatching(why) }] });
      expect(db.tables.webhooks).toEqual([]);
    });

    it('takes those URLs when private networks are allowed (nothing is resolved), and a public or unresolvable name when not', async () => {
      const allowed = setup({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true });
      allowed.hosts.names.set('internal.example.com', ['10.0.0.7']);
      for (const url of ['http://127.0.0.1:4599/hook', 'http://internal.example.com/hook']) await expect(allowed.create({ url })).resolves.toMatchObject({ url });
      expect(allowed.hosts.asked).toEqual([]);
      const strict = setup();
      for (const url of ['https://receiver.example.com/hook', 'https://not-in-dns.example.com/hook', 'http://93.184.216.34/x']) {
        await expect(strict.create({ url })).resolves.toMatchObject({ url });
      }
      expect(strict.hosts.asked).toEqual(['receiver.example.com', 'not-in-dns.example.com']);
    });

    it("is a 404 for an agent that is not the caller's, and stores nothing", async () => {
      const { db, sut, agent } = setup();
      const other = sut.create({ user_id: randomUUID(), agent_id: agent, url: 'https://receiver.example.com/', events: ['run.started'] } as CreateWebhookMessage);
      await expect(other).rejects.toBeInstanceOf(ResourceNotFoundError);
      expect(db.tables.webhooks).toEqual([]);
    });
  });

  describe('the webhooks_per_agent quota', () => {
    it('refuses a webhook past QUOTA_WEBHOOKS_PER_AGENT under the agent lock, disabled ones counted, and stores nothing for it', async () => {
      const { db, store, sut, user, agent, create } = setup({ QUOTA_WEBHOOKS_PER_AGENT: 2 });
      const first = await create();
      await sut.update({ user_id: user, agent_id: agent, webhook_id: first.webhook_id, status: 'disabled' });
      await create();
      const refused = create();
      await expect(refused).rejects.toBeInstanceOf(QuotaExceededError);
      await expect(refused).rejects.toMatchObject({ quota: 'webhooks_per_agent', limit: 2 });
      expect(db.tables.webhooks).toHaveLength(2);
      expect(store.locked).toEqual([agent, agent, agent]);
    });

    it('counts each agent apart; deleting a webhook frees its slot', async () => {
      const { agents, sut, user, agent, create } = setup({ QUOTA_WEBHOOKS_PER_AGENT: 1 });
      const only = await create();
      const otherAgent = randomUUID();
      agents.own(user, otherAgent);
      await expect(create({ agent_id: otherAgent })).resolves.toMatchObject({ status: 'active' });
      await sut.delete(user, agent, only.webhook_id);
      await expect(create()).resolves.toMatchObject({ status: 'active' });
    });

    it("counts only the agent generation's webhooks and those from before generations: a deleted agent's wait for deletion without taking a new one's room", async () => {
      const { db, agents, user, agent, create } = setup({ QUOTA_WEBHOOKS_PER_AGENT: 2 });
      db.addWebhook({ agentId: agent, userId: user, agentGeneration: '1' });
      db.addWebhook({ agentId: agent, userId: user, agentGeneration: '1' });
      agents.own(user, agent, 2);
      await create();
      db.addWebhook({ agentId: agent, userId: user, agentGeneration: null });
      await expect(create()).rejects.toBeInstanceOf(QuotaExceededError);
    });

    it('takes no lock and sets no limit at 0', async () => {
      const { store, create } = setup({ QUOTA_WEBHOOKS_PER_AGENT: 0 });
      for (let i = 0; i < 4; i++) await create();
      expect(store.locked).toEqual([]);
    });
  });

  describe('reads', () => {
    it("list: the agent's webhooks of its current generation (and from before generations), oldest first; not another agent's", async () => {
      const { db, agents, sut, user, agent, create } = setup();
      const legacy = db.addWebhook({ agentId: agent, userId: user, agentGeneration: null });
      db.addWebhook({ agentId: agent, userId: user, agentGeneration: '1' });
      db.addWebhook({ agentId: randomUUID(), userId: user });
      agents.own(user, agent, 2);
      const current = await create();
      expect((await sut.list(user, agent)).map((w) => w.webhook_id)).toEqual([legacy.id, current.webhook_id]);
    });

    it("get: a 404 for another user's webhook, one of an earlier agent with the id, a deleted agent's, and ids that are not UUIDs", async () => {
      const { db, agents, sut, user, agent, create } = setup();
      const mine = await create();
      const stale = db.addWebhook({ agentId: agent, userId: user, agentGeneration: '0' });
      const intruder = randomUUID();
      agents.own(intruder, randomUUID());
      const refusals = [
        () => sut.get(intruder, agent, mine.webhook_id),
        () => sut.get(user, agent, stale.id),
        () => sut.get(user, agent, 'not-a-uuid'),
        () => sut.list(user, 'not-a-uuid'),
      ];
      for (const refused of refusals) await expect(refused()).rejects.toBeInstanceOf(ResourceNotFoundError);
      await expect(sut.get(user, agent, mine.webhook_id)).resolves.toMatchObject({ webhook_id: mine.webhook_id, url: 'https://receiver.example.com/hook' });
      agents.remove(agent);
      await expect(sut.get(user, agent, mine.webhook_id)).rejects.toBeInstanceOf(ResourceNotFoundError);
      await expect(sut.list(user, agent)).rejects.toBeInstanceOf(ResourceNotFoundError);
    });
  });

  describe('update and delete', () => {
    it('changes only the fields given, and refuses a bad URL with nothing changed', async () => {
      const { db, sut, user, agent, create } = setup();
      const { webhook_id } = await create({ events: ['run.started', 'run.failed'] });
      const ref = { user_id: user, agent_id: agent, webhook_id };
      expect(await sut.update({ ...ref, status: 'disabled' })).toMatchObject({ status: 'disabled', events: ['run.started', 'run.failed'] });
      expect(await sut.update({ ...ref, url: 'http://other.example.com/x', events: ['run.paused'] })).toMatchObject({
        status: 'disabled',
        url: 'http://other.example.com/x',
        events: ['run.paused'],
      });
      await expect(sut.update({ ...ref, url: 'https://a:b@other.example.com/' })).rejects.toBeInstanceOf(ValidationFailedError);
      expect(db.tables.webhooks[0]).toMatchObject({ url: 'http://other.example.com/x', status: 'disabled' });
    });

    it('checks a new URL as at creation, and changes nothing when it is refused', async () => {
      const { db, sut, user, agent, create } = setup();
      const { webhook_id } = await create();
      const refused = sut.update({ user_id: user, agent_id: agent, webhook_id, url: 'http://localhost:3000/hook' });
      await expect(refused).rejects.toMatchObject({ errors: [{ field: 'url', message: expect.stringMatching(/resolves to 127\.0\.0\.1/) }] });
      expect(db.tables.webhooks[0].url).toBe('https://receiver.example.com/hook');
    });

    it("deletes the webhook with its deliveries and their attempts; another user's is a 404 and stays", async () => {
      const { db, sut, user, agent, create } = setup();
      const { webhook_id } = await create();
      const delivery = db.addDelivery(webhook_id);
      db.tables.attempts.push({
        id: '1',
        deliveryId: delivery.id,
        attempt: 1,
        startedAt: db.now(),
        durationMs: 1,
        statusCode: 500,
        error: null,
        responseBody: '',
        requestHeaders: {},
        responseHeaders: {},
      });
      await expect(sut.delete(randomUUID(), agent, webhook_id)).rejects.toBeInstanceOf(ResourceNotFoundError);
      expect(db.tables.webhooks).toHaveLength(1);
      await sut.delete(user, agent, webhook_id);
      expect([db.tables.webhooks, db.tables.deliveries, db.tables.attempts]).toEqual([[], [], []]);
    });
  });

  describe('health', () => {
    it('a new webhook: no failures, everything else null, in every read', async () => {
      const { sut, user, agent, create } = setup();
      const { webhook_id } = await create();
      const fresh = { consecutive_failures: 0, last_success_at: null, last_error: null, last_error_at: null, circuit_open_until: null, disabled_reason: null };
      expect((await sut.get(user, agent, webhook_id)).health).toEqual(fresh);
      expect((await sut.list(user, agent))[0].health).toEqual(fresh);
    });

    it("shows the recorded run of failures, last success and error, and the circuit's reopening time while it is open", async () => {
      const { db, gate, sut, user, agent, create } = setup();
      const { webhook_id } = await create();
      Object.assign(db.tables.webhooks[0], {
        consecutiveFailures: 6,
        lastSuccessAt: new Date('2026-03-01T10:00:00Z'),
        lastError: 'HTTP 503 Service Unavailable',
        lastErrorAt: new Date('2026-03-01T11:59:00Z'),
      });
      gate.openUntil.set(webhook_id, new Date('2026-03-01T12:01:00Z'));
      expect((await sut.get(user, agent, webhook_id)).health).toEqual({
        consecutive_failures: 6,
        last_success_at: '2026-03-01T10:00:00.000Z',
        last_error: 'HTTP 503 Service Unavailable',
        last_error_at: '2026-03-01T11:59:00.000Z',
        circuit_open_until: '2026-03-01T12:01:00.000Z',
        disabled_reason: null,
      });
    });

    it('says why a webhook is disabled (its owner, or its receiver answered 410) while it is, and nothing once enabled again', async () => {
      const { db, sut, user, agent, create } = setup();
      const { webhook_id } = await create();
      const ref = { user_id: user, agent_id: agent, webhook_id };
      expect((await sut.update({ ...ref, status: 'disabled' })).health.disabled_reason).toBe('disabled_by_owner');
      expect((await sut.update({ ...ref, status: 'active' })).health.disabled_reason).toBeNull();
      Object.assign(db.tables.webhooks[0], { status: 'disabled', disabledReason: 'receiver_gone' });
      // Disabling it again does not hide why it went.
      expect((await sut.update({ ...ref, status: 'disabled' })).health.disabled_reason).toBe('receiver_gone');
      expect(await sut.update({ ...ref, status: 'active' })).toMatchObject({ status: 'active', health: { disabled_reason: null } });
    });
  });
});
