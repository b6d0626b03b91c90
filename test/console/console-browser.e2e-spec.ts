/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { runCli } from '../support/admin-cli';
import { CONSOLE_PASSWORD as PASSWORD, ConsoleStack, DESKTOP, PHONE } from '../support/console-stack';
import { eventually } from '../support/eventually';
import { http } from '../support/http';
import { lines } from '../support/test-runtime';
import { TestSystem } from '../support/test-system';
import { Receiver } from '../support/webhook-receiver';

/*
 * Issue #19: the console in a real browser (Debian's Chromium driven by playwright-core),
 * served by the gateway, against the real apps. One person's first day, in order: first-run
 * setup, a first API key, an agent built with the test runtime, a run watched live, a
 * schedule, a webhook and its delivery, sign-out; then a second user and a program that
 * try to use what they should not.
 *
 * CONSOLE_SCREENSHOTS=<dir> also saves each main page at desktop and phone width.
 */

/** A promise the test resolves to let a runtime script go on. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('The console in a browser', () => {
  let stack: ConsoleStack;
  let receiver: Receiver;
  let receiverUrl: string;
  let system: TestSystem;
  let base: string;
  let page: Page;
  const liveGate = gate();
  let agentUrl = '';
  let apiKey = '';
  let userId = '';

  beforeAll(async () => {
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    stack = await ConsoleStack.start({ runtime: true, system: { webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } } });
    ({ system, base, page } = stack);
    const runtime = stack.runtime!;
    // A build writes instructions and succeeds; 'watch me live' waits for the test half-way through.
    runtime.handler = lines({ type: 'step', title: 'reading the instructions' }, 50, { type: 'instructions', content: 'Check the backups.\nReport failures.' }, { type: 'completed', outcome: 'success' });
    runtime.script('watch me live', async (reply) => {
      reply.line({ type: 'title', title: 'Watching live' });
      reply.line({ type: 'step', title: 'first step' });
      reply.line({ type: 'tool_call', call_id: 'c1', tool: 'http_request', input: { method: 'GET', url: 'https://example.com/' } });
      reply.line({ type: 'message', text: 'half-way there' });
      await liveGate.wait;
      reply.line({ type: 'step', title: 'second step' });
      reply.line({ type: 'usage', model: 'model-1', input_tokens: 1200, output_tokens: 300 });
      reply.line({ type: 'completed', outcome: 'success', summary: 'all done' });
      reply.end();
    });
    runtime.script('quick', lines({ type: 'completed', outcome: 'success' }));
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  /** Screenshots of the page as it is, at desktop and at phone width (only with CONSOLE_SCREENSHOTS), named as in docs/images. */
  async function shot(name: string): Promise<void> {
    await stack.screenshot(page, `console-${name}-desktop`);
    await stack.screenshot(page, `console-${name}-phone`, { viewport: PHONE, fullPage: true });
  }

  it('serves the console with a strict CSP, immutable hashed assets and a revalidated page', async () => {
    const index = await fetch(`${base}/console/agents/anything`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toMatch(/script-src 'self'; style-src 'self'/);
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const asset = html.match(/\/console\/assets\/[^"]+\.js/)![0];
    const script = await fetch(`${base}${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${base}/console/assets/gone-1234.js`)).status).toBe(404);
  });

  it('first run: creates the first user with the setup token and signs in', async () => {
    const { setup_token: token } = await runCli(system, ['setup-token']);
    await page.goto(`${base}/console/`);
    await page.waitForURL('**/console/setup');
    await shot('setup');
    await page.getByLabel('Setup token').fill('aas_setup_wrong');
    await page.getByLabel('Email').fill('Ada@Example.test');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create the first user' }).click();
    await page.getByText('The setup token is invalid, expired or already used').waitFor();
    await page.getByLabel('Setup token').fill(token);
    await page.getByRole('button', { name: 'Create the first user' }).click();
    await page.waitForURL('**/console/settings/api-keys');
    await page.getByText('ada@example.test').waitFor();
    expect(await page.evaluate(() => document.cookie)).not.toContain('aas_session');
  });

  it('creates a first API key, shown once, that works for programs', async () => {
    await page.getByText('No keys yet').waitFor();
    await page.getByLabel('Key name').fill('ci-pipeline');
    await page.getByRole('button', { name: 'Create key' }).click();
    apiKey = (await page.getByTestId('secret-value').textContent()) ?? '';
    expect(apiKey).toMatch(/^aas_/);
    await shot('api-keys');
    const me = await http(base, 'GET', '/v1/me', { key: apiKey });
    expect(me.status).toBe(200);
    userId = me.body.user_id;
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByTestId('secret-value').count()).resolves.toBe(0);
    await page.getByRole('table', { name: 'API keys' }).getByText('ci-pipeline').waitFor();
  });

  it('creates an agent, gives it instructions, and builds it (deployed)', async () => {
    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await page.getByText('No agents here yet').waitFor();
    await page.getByRole('button', { name: 'New agent' }).click();
    await page.waitForURL(/\/console\/agents\/[0-9a-f-]{36}$/);
    agentUrl = page.url();
    await page.getByText('not deployed').first().waitFor();
    await page.getByRole('link', { name: 'Instructions' }).click();
    await page.getByLabel('Instructions').fill('Check the backups.');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByRole('button', { name: 'Build and deploy' }).click();
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    await page.getByTestId('stream-state').getByText('ended').waitFor();
    await page.getByRole('switch', { name: 'Raw events' }).check();
    await page.getByRole('list', { name: 'Run events' }).getByText('completed').waitFor();
    await page.goto(agentUrl);
    await page.getByText('deployed', { exact: true }).first().waitFor();
    // The build wrote a second version: the diff shows what it changed.
    await page.getByRole('link', { name: 'Instructions' }).click();
    const diff = page.getByLabel('Differences between the versions');
    await diff.getByText('+ Report failures.').waitFor();
    expect(await diff.locator('.diff-removed').count()).toBe(0);
    await shot('instructions');
  });

  it('renames the agent: its name shows on its page, in the list and in a run\'s breadcrumb', async () => {
    await page.goto(agentUrl);
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Name').fill('');
    await page.getByRole('button', { name: 'Save the name' }).click();
    await page.getByText('A name of 1 to 200 characters.').waitFor();
    await page.getByLabel('Name').fill('Backup checker');
    await page.getByLabel('What it does (optional)').fill('Checks the nightly backups.');
    await page.getByRole('button', { name: 'Save the name' }).click();
    await page.getByRole('heading', { name: 'Backup checker' }).waitFor();
    await page.getByText('Checks the nightly backups.').waitFor();
    const agentId = agentUrl.split('/').pop();
    expect((await http(base, 'GET', `/v1/agents/${agentId}`, { key: apiKey })).body.agent.agent_name).toEqual({ name: 'Backup checker', explanation: 'Checks the nightly backups.' });
    await page.goto(`${base}/console/agents`);
    await page.getByRole('link', { name: 'Backup checker' }).waitFor();
    expect(await page.title()).toBe('Agents · Agent Automation');
    await page.goto(agentUrl);
    await page.getByRole('heading', { level: 1, name: 'Backup checker' }).waitFor();
    expect(await page.title()).toBe('Backup checker · Agent Automation');
  });

  it('starts with a skip link, and shows where the keyboard is with a visible ring', async () => {
    await page.goto(agentUrl);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    const ring = await skip.evaluate((el) => {
      const style = getComputedStyle(el);
      return { width: parseFloat(style.outlineWidth), style: style.outlineStyle, top: el.getBoundingClientRect().top };
    });
    expect(ring.width).toBeGreaterThanOrEqual(2);
    expect(ring.style).toBe('solid');
    expect(ring.top).toBeGreaterThanOrEqual(0); // on screen once focused
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });

  it("watches a run's events arrive live, without reloading", async () => {
    await page.goto(agentUrl);
    await page.getByLabel('Goal of the run').fill('watch me live');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    await page.locator('.crumbs').getByRole('link', { name: 'Backup checker' }).waitFor();
    // The raw events (the timeline has its own file, console-runs.e2e-spec.ts).
    await page.getByRole('switch', { name: 'Raw events' }).check();
    const events = page.getByRole('list', { name: 'Run events' });
    await events.getByText('message').waitFor();
    await page.getByTestId('stream-state').getByText('live').waitFor();
    expect(await events.getByText('completed').count()).toBe(0);
    // The facts follow the events as they arrive, not the run as it was first fetched.
    await page.getByTestId('run-steps').getByText('1', { exact: true }).waitFor({ timeout: 1000 });
    await page.getByRole('heading', { name: 'Run 2 · Watching live' }).waitFor();
    await page.locator('.facts').getByText('http_request').waitFor();
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    await shot('run-live');
    liveGate.open();
    await events.getByText('all done').waitFor();
    await page.getByTestId('stream-state').getByText('ended').waitFor();
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await events.locator('li').count()).toBe(8);
    await page.getByText('completed').first().waitFor();
    await page.getByTestId('run-steps').getByText('2', { exact: true }).waitFor({ timeout: 1000 });
    await page.getByTestId('run-usage').getByText(/1,200 tokens in, 300 out, 1 model call · \d+ credits/).waitFor();
    await page.locator('.facts').getByText('all done').waitFor();
  });

  it('lists the runs with filters and paging', async () => {
    await page.goto(agentUrl);
    const table = page.getByRole('table', { name: 'Runs' });
    await table.getByText('Run 2').waitFor();
    await page.getByText('Filters').click();
    await page.getByLabel('Kind').selectOption('builder');
    await page.waitForURL(/filter_policy_group=builder/);
    await table.getByText('Run 2').waitFor({ state: 'detached' });
    await table.getByText('Run 1').waitFor();
    await shot('runs');
  });

  it('shows the next five fires as the cron is typed, then sets, pauses and resumes the schedule', async () => {
    await page.goto(`${agentUrl}/schedule`);
    const cron = page.getByLabel(/^Cron/);
    await cron.fill('0 0 9 * *');
    await page.getByText('cron expression needs 7 fields').waitFor();
    await cron.fill('0 30 9 ? * MON-FRI *');
    await page.getByLabel('Timezone').fill('Asia/Tokyo');
    const fires = page.getByTestId('next-fires').locator('li');
    await eventually('five fires in Tokyo time', async () => (await fires.allTextContents()).join('|'), (text) => (text.match(/09:30:00/g) ?? []).length === 5);
    const api = await http(base, 'POST', '/v1/schedules/preview', { key: apiKey, body: { cron: '0 30 9 ? * MON-FRI *', timezone: 'Asia/Tokyo' } });
    const shown = await fires.allTextContents();
    expect(shown).toHaveLength(5);
    expect(shown.map((text) => text.match(/\d{1,2}/)![0])).toEqual(api.body.upcoming.map((ms: number) => String(new Date(ms + 9 * 3_600_000).getUTCDate())));
    await shot('schedule');
    await page.getByRole('button', { name: 'Set the schedule' }).click();
    await page.getByText('0 30 9 ? * MON-FRI * Asia/Tokyo').waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('paused', { exact: true }).waitFor();
    expect((await http(base, 'GET', `/v1/agents/${agentUrl.split('/').pop()}/schedule`, { key: apiKey })).body.schedule).toMatchObject({ paused: true, timezone: 'Asia/Tokyo' });
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('active', { exact: true }).waitFor();
  });

  it('takes a time zone typed key by key, pauses included, without an error screen', async () => {
    await page.goto(`${agentUrl}/schedule`);
    const zone = page.getByLabel('Timezone');
    await zone.fill('');
    await zone.pressSequentially('Ame', { delay: 30 });
    // The pause: the half-typed zone settles, and the page says what is wrong under the field.
    await page.getByText('Not a time zone (yet)').waitFor();
    await zone.pressSequentially('rica/Chi', { delay: 30 });
    await page.getByText('Not a time zone (yet)').waitFor();
    await zone.pressSequentially('cago', { delay: 30 });
    await page.getByText('Next five fires (America/Chicago)').waitFor();
    expect(await page.getByText('Not a time zone (yet)').count()).toBe(0);
    expect(await page.getByText(/Unexpected Application Error|ran into a problem/).count()).toBe(0);
    expect(await zone.getAttribute('aria-invalid')).toBeNull();
  });

  it('creates a webhook (secret shown once) and shows its delivery, with attempts and redelivery', async () => {
    await page.goto(`${agentUrl}/webhooks`);
    await page.getByText('No webhooks').waitFor();
    await page.getByText('Add a webhook').click();
    await page.getByLabel('URL').fill(`${receiverUrl}/hook`);
    await page.getByLabel('run.completed').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    expect(await page.getByTestId('secret-value').textContent()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    await shot('webhooks');
    const agentId = agentUrl.split('/').pop();
    expect((await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: apiKey, body: { user_message: 'quick' } })).status).toBe(201);
    await eventually('the delivery', () => receiver.on('/hook').length, (n) => n === 1);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    const delivery = page.getByTestId('delivery');
    await delivery.getByText('Attempt 1: 204').waitFor();
    await delivery.getByText('run.completed', { exact: true }).waitFor();
    await shot('deliveries');
    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await eventually('the redelivery', () => receiver.on('/hook').length, (n) => n === 2);
    await delivery.getByText('Attempt 2: 204').waitFor();
    expect(receiver.deliveryIds()[0]).toBe(receiver.deliveryIds()[1]);
    // The webhook's card shows its endpoint's health (issue #25).
    await page.goto(`${agentUrl}/webhooks`);
    await page.getByTestId('webhook-health').getByText('Healthy.').waitFor();
    expect(await page.getByTestId('webhook-health').textContent()).toMatch(/^Healthy\. Last delivered \d+ seconds? ago\.$/);
  });

  it('shows the agents with their workspaces, usable at phone width', async () => {
    await page.goto(`${base}/console/agents`);
    await page.getByLabel('New workspace name').fill('Nightly jobs');
    await page.getByRole('button', { name: 'Add' }).click();
    const select = page.getByRole('table', { name: 'Agents' }).getByRole('combobox');
    await select.selectOption({ label: 'Nightly jobs' });
    await page.getByRole('button', { name: /Nightly jobs/ }).getByText('1').waitFor();
    await page.getByRole('button', { name: 'Move Nightly jobs up' }).click();
    await eventually('the new order', async () => (await http(base, 'GET', '/v1/workspaces', { key: apiKey })).body.workspaces.map((w: { name: string }) => w.name), (names) => names[0] === 'Nightly jobs');
    await shot('agents');
    // The theme toggle: system → light → dark → system; Pico CSS follows data-theme on <html>.
    const toggle = page.getByRole('button', { name: /^Theme:/ });
    const theme = () => page.evaluate(() => document.documentElement.getAttribute('data-theme'));
    await toggle.click();
    expect(await theme()).toBe('light');
    await toggle.click();
    expect(await theme()).toBe('dark');
    await page.reload();
    expect(await theme()).toBe('dark');
    await page.getByRole('table', { name: 'Agents' }).waitFor();
    await shot('agents-dark');
    await page.getByRole('button', { name: /^Theme:/ }).click();
    expect(await theme()).toBeNull();
    await page.setViewportSize(PHONE);
    // Nothing wider than the phone: no sideways scrolling.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);
  });

  it('refuses the session cookie alone (no CSRF header), even from the console page itself', async () => {
    const answer = await page.evaluate(async () => {
      const response = await fetch('/v1/agents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return { status: response.status, body: (await response.json()) as { detail: string } };
    });
    expect(answer.status).toBe(403);
    expect(answer.body.detail).toMatch(/x-csrf-token/);
    expect((await http(base, 'GET', '/v1/agents', { key: apiKey })).body.agents).toHaveLength(1);
  });

  it("gives a second user none of the first user's data", async () => {
    const evePage = await stack.newPage();
    try {
      await stack.signInAsNewUser('eve@example.test', { page: evePage });
      await evePage.getByText('No agents here yet').waitFor();
      await evePage.goto(agentUrl);
      await evePage.getByText(/Agent [0-9a-f-]+ not found/).waitFor();
      await evePage.goto(`${agentUrl}/webhooks`);
      await evePage.getByText(/not found/).first().waitFor();
      await evePage.goto(`${base}/console/settings/api-keys`);
      await evePage.getByRole('table', { name: 'API keys' }).waitFor();
      expect(await evePage.getByText('ci-pipeline').count()).toBe(0);
    } finally {
      await evePage.context().close();
    }
    expect((await http(base, 'GET', '/v1/me', { key: apiKey })).body.user_id).toBe(userId);
  });

  it('signs out: the session ends and the pages ask to sign in again', async () => {
    const cookie = (await stack.context.cookies()).find((c) => c.name === 'aas_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    await page.goto(`${base}/console/agents`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/console/login');
    await shot('login');
    await page.goto(`${base}/console/agents`);
    await page.waitForURL('**/console/login');
    expect((await http(base, 'GET', '/v1/console/session', { headers: { cookie: `aas_session=${cookie.value}` } })).status).toBe(401);
    // Wrong password: the Problem Details detail, as the API wrote it.
    await page.getByLabel('Email').fill('ada@example.test');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The email or password is wrong').waitFor();
  });

  it('ran without script errors or CSP violations', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});
