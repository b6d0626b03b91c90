/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { ConsoleStack, DESKTOP, PHONE } from '../support/console-stack';
import { eventually } from '../support/eventually';
import { http } from '../support/http';
import { Receiver } from '../support/webhook-receiver';
import { seriousViolations } from './axe-scan';

/*
 * Issue #30 item 5: deliveries that explain themselves, in a real browser against the real apps:
 * each attempt's request (headers, signatures, body) and response (status, headers, body as
 * kept), a filter by status, a test event, every failed delivery since a time sent again, the
 * endpoint's health; a second user who can reach none of it, nor hold back the first one's sends.
 *
 * CONSOLE_SCREENSHOTS=<dir> saves the deliveries page at desktop and phone width, light and dark.
 */
const TEST_EVENTS_PER_WEBHOOK = 3;

describe('The console: webhook deliveries', () => {
  let stack: ConsoleStack;
  let receiver: Receiver;
  let receiverUrl = '';
  let base: string;
  let page: Page;
  let apiKey = '';
  let agentId = '';
  let webhookId = '';
  /** While true the receiver answers 503, with a body and a header of its own. */
  let receiverDown = true;

  const deliveriesUrl = () => `${base}/console/agents/${agentId}/webhooks/${webhookId}`;
  const deliveries = async () => (await http(base, 'GET', `/v1/agents/${agentId}/webhooks/${webhookId}/deliveries?page_size=200`, { key: apiKey })).body.deliveries as Array<Record<string, any>>;
  const startRun = () => http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: apiKey, body: { skip_deploy_check: true, user_message: 'deliver me' } });

  beforeAll(async () => {
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    receiver.answer = () => (receiverDown ? { status: 503, headers: { 'x-receiver': 'down for maintenance', 'retry-after': '1' } } : { status: 204 });
    stack = await ConsoleStack.start({
      system: {
        runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' },
        webhooksEnv: {
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          // One retry, soon: a delivery to a receiver that is down is failed within a second.
          WEBHOOK_RETRY_DELAYS: '100ms',
          WEBHOOK_CIRCUIT_FAILURE_THRESHOLD: '100',
          WEBHOOK_TEST_EVENTS_PER_MINUTE: String(TEST_EVENTS_PER_WEBHOOK),
        },
      },
      // The test events' 429, shown as its Problem Details, is no page error.
      context: { reducedMotion: 'reduce' },
    });
    ({ base, page } = stack);
    apiKey = await stack.signInAsNewUser('ada@example.test');
    agentId = (await http(base, 'POST', '/v1/agents', { key: apiKey, body: {} })).body.agent.agent_id;
    webhookId = (await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: apiKey, body: { url: `${receiverUrl}/hook`, events: ['run.completed', 'run.failed'] } })).body.webhook_id;
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  /** Desktop and phone screenshots in both themes (only with CONSOLE_SCREENSHOTS); the phone never scrolls sideways. */
  async function shot(name: string): Promise<void> {
    await page.setViewportSize(PHONE);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);
    for (const theme of ['light', 'dark'] as const) {
      const suffix = theme === 'dark' ? '-dark' : '';
      await stack.screenshot(page, `${name}${suffix}-phone`, { theme, viewport: PHONE, fullPage: true });
      await stack.screenshot(page, `${name}${suffix}-desktop`, { theme, fullPage: true });
    }
  }

  it("shows each attempt's request as sent (headers, signatures, body) and response as kept, and the endpoint's health", async () => {
    await startRun();
    await eventually('a failed delivery', deliveries, (list) => list.length === 1 && list[0].status === 'failed');
    const received = receiver.on('/hook');
    expect(received).toHaveLength(2);
    await page.goto(deliveriesUrl());
    const delivery = page.getByTestId('delivery');
    await delivery.getByText('failed', { exact: true }).waitFor();
    await page.getByTestId('webhook-health').getByText('2 failed attempts in a row').waitFor();
    await delivery.getByText(/^Attempt 1: 503 in \d+ ms/).click();
    const request = page.getByRole('region', { name: 'Request of attempt 1' });
    const response = page.getByRole('region', { name: 'Response of attempt 1' });
    const headers = request.getByRole('table', { name: 'Request headers' });
    for (const name of ['webhook-signature', 'x-service-signature', 'webhook-id', 'x-service-event']) {
      expect((await headers.getByRole('row', { name: new RegExp(`^${name} `) }).locator('td').textContent())?.trim()).toBe(String(received[0].headers[name]));
    }
    expect(await request.getByTestId('request-body').textContent()).toBe(received[0].body);
    await response.getByText('Status 503').waitFor();
    expect(await response.getByRole('table', { name: 'Response headers' }).getByRole('row', { name: /^x-receiver / }).locator('td').textContent()).toBe('down for maintenance');
    expect(await response.getByTestId('response-body').textContent()).toBe('ok');
    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate(() => document.documentElement.removeAttribute('data-theme'));
    // The webhook's card says the same.
    await page.goto(`${base}/console/agents/${agentId}/webhooks`);
    await page.getByTestId('webhook-health').getByText(/2 failed attempts in a row, the last .* ago: HTTP 503/).waitFor();
  });

  it('filters by status, kept in the address', async () => {
    receiverDown = false;
    await startRun();
    await eventually('a succeeded delivery', deliveries, (list) => list.length === 2 && list[0].status === 'succeeded');
    await page.goto(deliveriesUrl());
    await page.getByTestId('delivery').nth(1).waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await page.waitForURL(/\?status=failed$/);
    await page.getByTestId('filter-scope').getByText('1 failed delivery in all.').waitFor();
    expect(await page.getByTestId('delivery').count()).toBe(1);
    await page.getByTestId('delivery').getByText('failed', { exact: true }).waitFor();
    await page.reload();
    await page.getByTestId('filter-scope').waitFor();
    await page.getByLabel('Status').selectOption('cancelled');
    await page.getByText('No cancelled delivery here.').waitFor();
    await page.getByLabel('Status').selectOption('');
    await page.waitForURL(deliveriesUrl());
    await page.getByTestId('delivery').nth(1).waitFor();
  });

  it('sends a test event, and shows the 429 once the webhook has had its test events for the minute', async () => {
    await page.goto(deliveriesUrl());
    const before = receiver.on('/hook').length;
    await page.getByLabel('Test event', { exact: true }).selectOption('run.failed');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test run.failed queued').waitFor();
    await eventually('the test event', () => receiver.on('/hook').length, (n) => n === before + 1);
    expect(receiver.on('/hook')[before].headers['x-service-event']).toBe('run.failed');
    const card = page.getByRole('article', { name: /^Delivery run\.failed / });
    await card.getByText('test', { exact: true }).waitFor();
    await card.getByText('succeeded', { exact: true }).waitFor();
    for (let i = 1; i < TEST_EVENTS_PER_WEBHOOK; i++) await http(base, 'POST', `/v1/agents/${agentId}/webhooks/${webhookId}/test`, { key: apiKey, body: {} });
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('form', { name: 'Send a test event' }).getByRole('alert').getByText(/test events/i).waitFor();
  });

  it('sends every failed delivery since a time again', async () => {
    await page.goto(deliveriesUrl());
    const before = receiver.on('/hook').length;
    const failed = (await deliveries()).filter((d) => d.status === 'failed');
    expect(failed).toHaveLength(1);
    await page.getByRole('button', { name: 'Redeliver failed' }).click();
    await page.getByTestId('redelivered').getByText('1 failed delivery queued again, oldest first.').waitFor();
    await eventually('the redelivery', () => receiver.on('/hook').length, (n) => n === before + 1);
    expect(receiver.on('/hook')[before].headers['x-service-delivery']).toBe(failed[0].delivery_id);
    await page.goto(`${deliveriesUrl()}?status=failed`);
    await page.getByText('No failed delivery here.').waitFor();
    // Nothing failed is left since then: asking again queues nothing.
    await page.getByRole('button', { name: 'Redeliver failed' }).click();
    await page.getByTestId('redelivered').getByText('0 failed deliveries queued again, oldest first.').waitFor();
    await page.goto(deliveriesUrl());
    await page.getByTestId('webhook-health').getByText('Healthy.').waitFor();
    // The screenshots show a failed attempt open: the receiver's 503, its headers and body.
    await page.getByTestId('attempt').filter({ hasText: /^Attempt 1: 503/ }).locator('summary').click();
    await page.getByRole('region', { name: 'Response of attempt 1' }).getByText('Status 503').waitFor();
    await shot('console-deliveries');
  });

  it("gives a second user none of the first one's deliveries, and does not hold back the first one's sends", async () => {
    const evePage = await stack.newPage();
    try {
      const eveKey = await stack.signInAsNewUser('eve@example.test', { page: evePage });
      await evePage.goto(deliveriesUrl());
      await evePage.getByText(/not found/).first().waitFor();
      expect(await evePage.getByTestId('delivery').count()).toBe(0);
      expect(await evePage.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
      // Eve's own webhook, tested until the limit: Ada's webhook still takes its own test events.
      const eveAgent = (await http(base, 'POST', '/v1/agents', { key: eveKey, body: {} })).body.agent.agent_id;
      const eveHook = (await http(base, 'POST', `/v1/agents/${eveAgent}/webhooks`, { key: eveKey, body: { url: `${receiverUrl}/eve`, events: ['run.completed'] } })).body.webhook_id;
      const eveSends = [];
      for (let i = 0; i <= TEST_EVENTS_PER_WEBHOOK; i++) eveSends.push((await http(base, 'POST', `/v1/agents/${eveAgent}/webhooks/${eveHook}/test`, { key: eveKey, body: {} })).status);
      expect(eveSends.at(-1)).toBe(429);
      expect((await http(base, 'POST', `/v1/agents/${agentId}/webhooks/${webhookId}/test`, { key: eveKey, body: {} })).status).toBe(404);
      expect((await http(base, 'POST', `/v1/agents/${agentId}/webhooks/${webhookId}/deliveries/redeliver`, { key: eveKey, body: { since: new Date(0).toISOString() } })).status).toBe(404);
    } finally {
      await evePage.context().close();
    }
    const otherHook = (await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: apiKey, body: { url: `${receiverUrl}/ada-2`, events: ['run.completed'] } })).body.webhook_id;
    await page.goto(`${base}/console/agents/${agentId}/webhooks/${otherHook}`);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test run.completed queued').waitFor();
    await eventually("Ada's test event", () => receiver.on('/ada-2').length, (n) => n === 1);
  });

  it('ran without script errors or CSP violations', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});
