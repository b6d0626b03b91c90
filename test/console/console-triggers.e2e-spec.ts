/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { ConsoleStack, DESKTOP, PHONE } from '../support/console-stack';
import { eventually } from '../support/eventually';
import { expectProblem, http } from '../support/http';
import { lines } from '../support/test-runtime';

/*
 * Issue #19, the parts that came with triggers and the newer schedule fields: the Triggers tab
 * (inbound webhooks shown once, a test payload signed in the browser, rotation, enable/disable,
 * edit, delete, the quota's 422; event triggers between agents and their last error), runs
 * filtered by what started them, the schedule's misfire policy and a backfill, in a real
 * browser against the real apps; and a second user who sees none of it.
 *
 * CONSOLE_SCREENSHOTS=<dir> also saves the Triggers and Schedule tabs at desktop and phone width.
 */
const QUOTA = 4;
const MAX_DEPTH = 2;

describe('The console: triggers and schedules', () => {
  let stack: ConsoleStack;
  let base: string;
  let page: Page;
  let apiKey = '';
  /** Importer starts Reporter when its runs complete; Reporter has the inbound webhooks. */
  let importer = '';
  let reporter = '';
  let hookUrl = '';

  const agentPage = (agentId: string, tab = '') => `${base}/console/agents/${agentId}${tab ? `/${tab}` : ''}`;
  const runsOf = async (agentId: string, query = '') =>
    (await http(base, 'GET', `/v1/agents/${agentId}/runs?page_size=1000${query}`, { key: apiKey })).body.runs as Array<Record<string, any>>;
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    http(base, 'POST', new URL(url).pathname, { rawBody: JSON.stringify(payload), headers: { 'content-type': 'application/json', ...headers } });

  async function deployedAgent(): Promise<string> {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: apiKey, body: {} })).body.agent.agent_id;
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: apiKey, body: { run_mode: 'build' } });
    await eventually(
      'agent deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: apiKey })).body.agent.deployment_state,
      (state) => state === 'deployed',
    );
    return agentId;
  }

  /** The card of one trigger, by its name. */
  const card = (name: string) => page.getByRole('article', { name: `Trigger ${name}` });

  beforeAll(async () => {
    // en-GB: times read as 24-hour clock in the assertions. (The quota's 422, a refused backfill: no page errors.)
    stack = await ConsoleStack.start({
      runtime: true,
      system: { schedulerEnv: { QUOTA_TRIGGERS_PER_AGENT: String(QUOTA), TRIGGER_MAX_DEPTH: String(MAX_DEPTH) } },
      context: { locale: 'en-GB' },
    });
    ({ base, page } = stack);
    stack.runtime!.handler = lines({ type: 'completed', outcome: 'success' });
    await stack.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    apiKey = await stack.signInAsNewUser('ada@example.test');
    [importer, reporter] = [await deployedAgent(), await deployedAgent()];
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  /** Screenshots of the page as it is, at desktop and phone width (only with CONSOLE_SCREENSHOTS); the phone never scrolls sideways. */
  async function shot(name: string): Promise<void> {
    await page.setViewportSize(PHONE);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);
    await stack.screenshot(page, `${name}-phone`, { viewport: PHONE, fullPage: true });
    await stack.screenshot(page, `${name}-desktop`, { fullPage: true });
  }

  it('creates an inbound webhook whose URL is shown once and copied; a POST to it starts a run with the rendered message', async () => {
    await page.goto(agentPage(reporter));
    await page.getByRole('link', { name: 'Triggers' }).click();
    await page.getByText('No triggers.').waitFor();
    await page.getByRole('button', { name: 'Add an inbound webhook' }).click();
    const form = page.getByRole('form', { name: 'New inbound webhook' });
    await form.getByLabel('Name', { exact: true }).fill('deploys');
    await form.getByLabel('Message template').fill('Deploy {{payload.ref}} of {{payload.repository.name}} ({{headers.x-source}})');
    await form.getByRole('button', { name: 'Create inbound webhook' }).click();
    hookUrl = (await page.getByTestId('endpoint-url').textContent()) ?? '';
    expect(hookUrl).toMatch(new RegExp(`^${base}/hooks/[0-9a-f-]{36}/[A-Za-z0-9_-]{43}$`));
    expect(await page.getByTestId('endpoint-secret').textContent()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy URL' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(hookUrl);
    await shot('console-triggers-created');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('endpoint-url').count()).toBe(0);
    // Neither the list nor a reload shows the URL's token again.
    await page.reload();
    await card('deploys').getByText('never').waitFor();
    expect(await page.content()).not.toContain(hookUrl.split('/').pop());

    const sent = await post(hookUrl, { ref: 'v1.2', repository: { name: 'app' } }, { 'x-source': 'ci' });
    expect(sent.status).toBe(202);
    await card('deploys').getByText(/last triggered .* ago/).waitFor();

    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByText('Filters').click();
    await page.getByLabel('Started by').selectOption('webhook');
    await page.waitForURL(/filter_trigger_kind=webhook/);
    const table = page.getByRole('table', { name: 'Runs' });
    const row = table.getByRole('row').filter({ hasText: 'Deploy v1.2 of app (ci)' });
    await row.getByText('run · webhook').waitFor();
    // The header and the one run the webhook started: the build is filtered out.
    await eventually('only the webhook run', () => table.getByRole('row').count(), (n) => n === 2);
    await row.getByRole('link').click();
    await page.waitForURL(`**/runs/${sent.body.run_id}`);
    await page.getByText('Deploy v1.2 of app (ci)').waitFor();
    await page.getByTestId('stream-state').getByText('ended').waitFor();
  });

  it('sends a test payload from the page, signed in the browser (Standard Webhooks and GitHub), and refuses one that is not JSON', async () => {
    for (const [name, verification] of [
      ['signed', 'Standard Webhooks signature'],
      ['from github', 'GitHub signature (X-Hub-Signature-256)'],
    ]) {
      await page.goto(agentPage(reporter, 'triggers'));
      await page.getByRole('button', { name: 'Add an inbound webhook' }).click();
      const form = page.getByRole('form', { name: 'New inbound webhook' });
      await form.getByLabel('Name', { exact: true }).fill(name);
      await form.getByLabel('Verification').selectOption({ label: verification });
      await form.getByLabel('Message template').fill('{{payload.hello}} via {{trigger.name}}');
      await form.getByRole('button', { name: 'Create inbound webhook' }).click();
      const url = (await page.getByTestId('endpoint-url').textContent()) ?? '';
      // Unsigned, the endpoint refuses the call: the page's signature is what lets it in.
      expectProblem(await post(url, { hello: 'unsigned' }), 401);
      const payload = page.getByLabel('Test payload (JSON)');
      await payload.fill('{"hello": ');
      await page.getByRole('button', { name: 'Send test payload' }).click();
      await page.getByText(/^Not JSON/).waitFor();
      await payload.fill(JSON.stringify({ hello: 'a test from the console' }));
      await page.getByRole('button', { name: 'Send test payload' }).click();
      await page.getByRole('link', { name: 'open the run it started' }).click();
      await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
      await page.getByText(`a test from the console via ${name}`).waitFor();
      await page.getByText('run · webhook').waitFor();
    }
    expect((await runsOf(reporter, '&filter_trigger_kind=webhook')).map((r) => r.goal).sort()).toEqual(
      ['Deploy v1.2 of app (ci)', 'a test from the console via from github', 'a test from the console via signed'].sort(),
    );
  });

  it('creates an event trigger from another agent, whose completed run starts this one (the chain run shows its source)', async () => {
    await page.goto(agentPage(reporter, 'triggers'));
    await page.getByRole('button', { name: 'Add an event trigger' }).click();
    const form = page.getByRole('form', { name: 'New event trigger' });
    await form.getByRole('button', { name: 'Create event trigger' }).click();
    await form.getByText('Pick the agent whose runs start this one').waitFor();
    await form.getByLabel('Name', { exact: true }).fill('after the import');
    await form.getByLabel('Source agent').selectOption(importer);
    await form.getByLabel('run.failed').check();
    await form.getByLabel('Message template').fill('Report on {{source_run.run_id}} ({{source_run.outcome}})');
    await form.getByRole('button', { name: 'Create event trigger' }).click();
    await card('after the import').getByText(`${importer.slice(0, 8)}'s run ends with run.completed, run.failed`).waitFor();

    const source = (await http(base, 'POST', `/v1/agents/${importer}/runs`, { key: apiKey, body: {} })).body.run.run_id;
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByText('Filters').click();
    await page.getByLabel('Started by').selectOption('event');
    const row = page.getByRole('table', { name: 'Runs' }).getByRole('row').filter({ hasText: `Report on ${source} (success)` });
    await row.getByText('run · event').waitFor();
    await row.getByRole('link').click();
    await page.getByText(`Report on ${source} (success)`).waitFor();
    const chainRunUrl = page.url();
    // Its source run, and back: the source's runs started by its end are this one.
    await page.getByTestId('run-related').getByRole('link', { name: `run ${source}` }).click();
    await page.waitForURL(`**/console/runs?filter_run_id=${source}`);
    await page.getByRole('table', { name: 'All runs' }).getByRole('link', { name: /^Run \d+$/ }).click();
    await page.waitForURL(`**/console/agents/${importer}/runs/${source}`);
    await page.getByTestId('run-related').getByRole('link', { name: 'runs its end started' }).click();
    await page.waitForURL(`**/console/runs?filter_source_run_id=${source}`);
    await page.getByRole('table', { name: 'All runs' }).getByRole('link', { name: /^Run \d+$/ }).click();
    await page.waitForURL(chainRunUrl);
    const triggerId = (await runsOf(reporter, '&filter_trigger_kind=event'))[0].trigger_id;
    await page.getByRole('link', { name: triggerId }).click();
    await page.waitForURL(`**/agents/${reporter}/triggers`);
    await card('after the import').getByText(/last triggered .* ago/).waitFor();
  });

  it("shows an event trigger's last error: a loop stopped at TRIGGER_MAX_DEPTH", async () => {
    const looping = await deployedAgent();
    await page.goto(agentPage(looping, 'triggers'));
    await page.getByRole('button', { name: 'Add an event trigger' }).click();
    const form = page.getByRole('form', { name: 'New event trigger' });
    await form.getByLabel('Name', { exact: true }).fill('again');
    await form.getByLabel('Source agent').selectOption(looping);
    await form.getByRole('button', { name: 'Create event trigger' }).click();
    await card('again').getByText("(this agent)'s run ends with run.completed").waitFor();
    await http(base, 'POST', `/v1/agents/${looping}/runs`, { key: apiKey, body: {} });
    // Depth 0 → 1 → 2; the run at depth 3 is refused, and the trigger says why.
    await card('again').getByTestId('trigger-last-error').getByText(`TRIGGER_MAX_DEPTH (${MAX_DEPTH})`, { exact: false }).waitFor({ timeout: 30_000 });
    expect(await runsOf(looping, '&filter_trigger_kind=event')).toHaveLength(MAX_DEPTH);
  });

  it('shows the quota 422 detail, rotates (the old URL answers 404), disables, edits and deletes', async () => {
    await page.goto(agentPage(reporter, 'triggers'));
    await card('after the import').getByText(/last triggered .* ago/).waitFor();
    await shot('console-triggers');
    await page.getByRole('button', { name: 'Add an inbound webhook' }).click();
    const form = page.getByRole('form', { name: 'New inbound webhook' });
    await form.getByLabel('Name', { exact: true }).fill('one too many');
    await form.getByRole('button', { name: 'Create inbound webhook' }).click();
    await form.getByText(`quota triggers_per_agent is ${QUOTA}`, { exact: false }).waitFor();

    await card('deploys').getByRole('button', { name: 'Rotate URL and secret' }).click();
    await page.getByRole('dialog', { name: 'Rotate the URL and secret of "deploys"?' }).getByRole('button', { name: 'Rotate' }).click();
    await page.getByText('New URL and secret of "deploys"').waitFor();
    const rotated = (await page.getByTestId('endpoint-url').textContent()) ?? '';
    expect(rotated).not.toBe(hookUrl);
    expectProblem(await post(hookUrl, {}), 404);
    expect((await post(rotated, { ref: 'v2', repository: { name: 'app' } })).status).toBe(202);
    await page.getByRole('button', { name: 'Done' }).click();

    await card('deploys').getByRole('button', { name: 'Disable' }).click();
    await card('deploys').getByText('disabled', { exact: true }).waitFor();
    expectProblem(await post(rotated, {}), 404);
    await card('deploys').getByRole('button', { name: 'Enable' }).click();
    await card('deploys').getByText('active', { exact: true }).waitFor();

    await card('deploys').getByRole('button', { name: 'Edit' }).click();
    await card('deploys').getByLabel('Name', { exact: true }).fill('releases');
    await card('deploys').getByLabel('Message template').fill('Release {{payload.ref}}');
    await card('deploys').getByRole('button', { name: 'Save' }).click();
    await card('releases').getByText('Release {{payload.ref}}').waitFor();
    expect((await post(rotated, { ref: 'v3' })).status).toBe(202);
    await eventually('the edited template', async () => (await runsOf(reporter)).map((r) => r.goal), (goals) => goals.includes('Release v3'));

    await card('releases').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete the trigger "releases"?' }).getByRole('button', { name: 'Delete trigger' }).click();
    await card('releases').waitFor({ state: 'detached' });
    expectProblem(await post(rotated, {}), 404);
    // The quota has room again.
    await form.getByRole('button', { name: 'Create inbound webhook' }).click();
    await card('one too many').waitFor();
  });

  it('sets a schedule that catches up missed fires, and backfills a past range with links to its runs', async () => {
    await page.goto(agentPage(reporter, 'schedule'));
    await page.getByLabel(/^Cron/).fill('0 0 * * * ? *');
    await page.getByLabel('Timezone').fill('Asia/Tokyo');
    await page.getByLabel('Fire times missed').selectOption('catch_up');
    const catchUp = page.getByLabel('Catch-up window (seconds)');
    await catchUp.fill('0');
    await page.getByRole('button', { name: 'Set the schedule' }).click();
    await page.getByText('1 to 604800 seconds (7 days)').waitFor();
    await catchUp.fill('7200');
    await page.getByRole('button', { name: 'Set the schedule' }).click();
    await page.getByTestId('schedule-facts').getByText('missed fires: catch up within 7200 s', { exact: false }).waitFor();
    expect((await http(base, 'GET', `/v1/agents/${reporter}/schedule`, { key: apiKey })).body.schedule).toMatchObject({
      cron: '0 0 * * * ? *',
      timezone: 'Asia/Tokyo',
      misfire: 'catch_up',
      catch_up_window: 7200,
      finished: false,
      last_error: null,
    });
    // The form shows what is set, after a reload too.
    await page.reload();
    await expect(page.getByLabel('Fire times missed').inputValue()).resolves.toBe('catch_up');
    await expect(page.getByLabel('Catch-up window (seconds)').inputValue()).resolves.toBe('7200');

    await page.getByText('Backfill: run the fire times of a past range').click();
    const backfill = page.getByRole('form', { name: 'Backfill' });
    const utc = (ms: number) => new Date(ms).toISOString().slice(0, 16);
    await backfill.getByRole('combobox', { name: /^In/ }).selectOption('UTC');
    await backfill.getByLabel('From', { exact: true }).fill(utc(Date.now() - 3 * 3_600_000 + 60_000));
    await backfill.getByLabel('To', { exact: true }).fill(utc(Date.now() + 2 * 3_600_000));
    await backfill.getByRole('button', { name: 'Backfill' }).click();
    await backfill.getByText('to is in the future', { exact: false }).waitFor();
    await backfill.getByLabel('To', { exact: true }).fill(utc(Date.now()));
    await backfill.getByRole('button', { name: 'Backfill' }).click();
    const started = backfill.getByRole('list', { name: 'Backfilled runs' }).getByRole('link');
    await started.first().waitFor();
    const hours = [3, 2, 1].map((back) => new Date(Math.floor(Date.now() / 3_600_000 - back + 1) * 3_600_000));
    expect(await started.count()).toBe(hours.length);
    expect(await started.allTextContents()).toEqual(hours.map((at) => expect.stringContaining(`${String(at.getUTCHours()).padStart(2, '0')}:00:00`)));
    const scheduled = await eventually('the backfilled runs', () => runsOf(reporter, '&filter_trigger_kind=schedule'), (r) => r.length === hours.length);
    await shot('console-schedule-misfire');
    await started.first().click();
    await page.waitForURL(new RegExp(`/runs/(${scheduled.map((r) => r.run_id).join('|')})$`));
    await page.getByText('run · schedule').waitFor();
  });

  it("gives a second user none of the first user's triggers, in the console or the API", async () => {
    const eveKey = await stack.createUser('eve@example.test');
    const evePage = await stack.newPage();
    try {
      await stack.signIn(evePage, 'eve@example.test');
      await evePage.goto(agentPage(reporter, 'triggers'));
      await evePage.getByText(/Agent [0-9a-f-]+ not found/).waitFor();
      expect(await evePage.getByText('after the import').count()).toBe(0);
      // Eve's own agent: no triggers, and none of Ada's agents to pick as a source.
      const own = (await http(base, 'POST', '/v1/agents', { key: eveKey, body: {} })).body.agent.agent_id;
      await evePage.goto(agentPage(own, 'triggers'));
      await evePage.getByText('No triggers.').waitFor();
      await evePage.getByRole('button', { name: 'Add an event trigger' }).click();
      const sources = await evePage.getByLabel('Source agent').locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
      expect(sources).toEqual(['', own]);
    } finally {
      await evePage.context().close();
    }
    expectProblem(await http(base, 'GET', `/v1/agents/${reporter}/triggers`, { key: eveKey }), 404);
    expect((await http(base, 'GET', `/v1/agents/${reporter}/triggers`, { key: apiKey })).body.triggers).toHaveLength(QUOTA);
  });

  it('ran without script errors or CSP violations', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});
