/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { ConsoleStack, PHONE } from '../support/console-stack';
import { eventually } from '../support/eventually';
import { http } from '../support/http';
import { lines } from '../support/test-runtime';

/*
 * Issue #30 items 3 and 2: the runs of all agents on one page (filters in the URL, search by run id,
 * the failed runs of the last day from the header), and a run page whose timeline shows the steps,
 * tool calls and messages of a run as they happen.
 *
 * CONSOLE_SCREENSHOTS=<dir> saves both pages at desktop and phone width, light and dark.
 */
const LONG_OUTPUT = JSON.stringify({ status: 200, body: 'x'.repeat(5000) });

/** A promise the test resolves to let a runtime script go on. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('The console: all runs, and a run as a timeline', () => {
  let stack: ConsoleStack;
  let base: string;
  let page: Page;
  const stepGates = [gate(), gate(), gate()];
  const followGates = [gate(), gate()];
  let apiKey = '';
  let reporterId = '';
  let checkerId = '';
  let failedRunId = '';

  beforeAll(async () => {
    stack = await ConsoleStack.start({ runtime: true, context: { reducedMotion: 'reduce' } });
    ({ base, page } = stack);
    const runtime = stack.runtime!;
    runtime.handler = lines({ type: 'step', title: 'the one step' }, { type: 'completed', outcome: 'success', summary: 'done' });
    runtime.script('break it', lines({ type: 'step', title: 'trying' }, { type: 'failed', error: 'it broke' }));
    // One step more each time the test opens a gate, the first with a tool call and its result.
    runtime.script('watch the timeline', async (reply) => {
      reply.line({ type: 'title', title: 'Status check' });
      reply.line({ type: 'step', title: 'Fetch the status page' });
      reply.line({ type: 'tool_call', call_id: 'c1', tool: 'http_request', input: { method: 'GET', url: 'https://status.example.test/' } });
      reply.line({ type: 'tool_result', call_id: 'c1', tool: 'http_request', output: LONG_OUTPUT, truncated: false, is_error: false });
      reply.line({ type: 'message', text: 'The status page answers 200.' });
      reply.line({ type: 'usage', model: 'model-1', input_tokens: 1000, output_tokens: 100 });
      for (const [i, next] of stepGates.entries()) {
        await next.wait;
        reply.line({ type: 'step', title: `Step after gate ${i + 1}` });
      }
      reply.line({ type: 'completed', outcome: 'success', summary: 'watched' });
      reply.end();
    });
    // Enough steps to fill the screen, then three more and two more when the test says.
    runtime.script('follow me', async (reply) => {
      for (let i = 1; i <= 15; i++) {
        reply.line({ type: 'step', title: `Early step ${i}` });
        reply.line({ type: 'message', text: `Message ${i}` });
      }
      for (const [i, next] of followGates.entries()) {
        await next.wait;
        for (let n = 0; n < 3 - i; n++) reply.line({ type: 'step', title: `Late step ${i}.${n}` });
      }
      reply.line({ type: 'completed', outcome: 'success', summary: 'followed' });
      reply.end();
    });
  }, 180_000);

  afterAll(async () => {
    [...stepGates, ...followGates].forEach((g) => g.open());
    await stack?.stop();
  });

  /** The page in the light theme at desktop width and the dark one at phone width (only with CONSOLE_SCREENSHOTS). */
  async function shot(name: string): Promise<void> {
    await stack.screenshot(page, `console-${name}-desktop`, { theme: 'light' });
    await stack.screenshot(page, `console-${name}-dark-desktop`, { theme: 'dark' });
    await stack.screenshot(page, `console-${name}-dark-phone`, { theme: 'dark', viewport: PHONE });
  }

  const start = async (agentId: string, goal: string): Promise<string> =>
    (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: apiKey, body: { user_message: goal, skip_deploy_check: true } })).body.run.run_id;
  const finished = (agentId: string, runId: string) =>
    eventually(`run ${runId} finished`, async () => (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: apiKey })).body.run.is_finished, (done) => done === true);
  const table = () => page.getByRole('table', { name: 'All runs' });
  /** The text of one column of the table, row by row. */
  const column = (label: string) => table().locator(`tbody td[data-label="${label}"]`).allTextContents();

  it('lists the runs of two agents, newest first, each linked to its agent and its page', async () => {
    apiKey = await stack.createUser('ada@example.test');
    reporterId = (await http(base, 'POST', '/v1/agents', { key: apiKey, body: {} })).body.agent.agent_id;
    checkerId = (await http(base, 'POST', '/v1/agents', { key: apiKey, body: {} })).body.agent.agent_id;
    await http(base, 'PATCH', `/v1/agents/${reporterId}`, { key: apiKey, body: { agent_name: { name: 'Reporter' } } });
    await http(base, 'PATCH', `/v1/agents/${checkerId}`, { key: apiKey, body: { agent_name: { name: 'Checker' } } });
    await finished(reporterId, await start(reporterId, 'write the report'));
    await finished(checkerId, await start(checkerId, 'check the backups'));
    failedRunId = await start(checkerId, 'break it');
    await finished(checkerId, failedRunId);

    await stack.signIn(page, 'ada@example.test');
    await page.getByRole('link', { name: 'All runs', exact: true }).click();
    await page.waitForURL('**/console/runs');
    await page.getByRole('heading', { level: 1, name: 'All runs' }).waitFor();
    await eventually('three runs', () => column('Agent'), (agents) => agents.length === 3 && !agents.some((a) => a.startsWith('Agent ')));
    expect(await column('Agent')).toEqual(['Checker', 'Checker', 'Reporter']);
    expect(await column('Status')).toEqual(['error', 'completed', 'completed']);
    expect(await column('Goal or title')).toEqual(['break it', 'check the backups', 'write the report']);
    expect(await page.getByTestId('runs-total').textContent()).toBe('3 runs');
    expect(await table().getByRole('link', { name: 'Reporter' }).getAttribute('href')).toBe(`/console/agents/${reporterId}`);
    expect(await table().getByRole('link', { name: 'Run 1' }).last().getAttribute('href')).toMatch(new RegExp(`/console/agents/${reporterId}/runs/[0-9a-f-]{36}$`));
    await shot('all-runs');
  });

  it('narrows with filters kept in the URL, through a reload', async () => {
    await page.getByText('Filters').click();
    await page.getByLabel('Agent').selectOption({ label: 'Checker' });
    await page.waitForURL(new RegExp(`filter_agent_id=${checkerId}`));
    await eventually('the checker runs', () => column('Agent'), (agents) => agents.length === 2);
    await page.getByLabel('Status').selectOption('completed');
    await page.waitForURL(/filter_status=completed/);
    await eventually('one run', () => column('Goal or title'), (goals) => goals.join() === 'check the backups');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'All runs' }).waitFor();
    await eventually('still one run after the reload', () => column('Goal or title'), (goals) => goals.join() === 'check the backups');
    expect(await page.getByLabel('Agent').inputValue()).toBe(checkerId);
    expect(await page.getByLabel('Status').inputValue()).toBe('completed');
    await page.getByLabel('Goal contains').fill('nothing like it');
    await page.getByLabel('Goal contains').press('Enter');
    await page.getByText('No run matches these filters.').waitFor();
  });

  it('shows the failed runs of the last day from the header', async () => {
    await page.goto(`${base}/console/agents`);
    const before = Date.now();
    await page.getByRole('link', { name: 'Failed (24 h)' }).click();
    await page.waitForURL(/\/console\/runs\?filter_status=error&filter_started_after=/);
    const after = new Date(new URL(page.url()).searchParams.get('filter_started_after')!).getTime();
    expect(after).toBeGreaterThanOrEqual(before - 24 * 3_600_000 - 1000);
    expect(after).toBeLessThanOrEqual(Date.now() - 24 * 3_600_000);
    await eventually('the failed run alone', () => column('Status'), (statuses) => statuses.join() === 'error');
    expect(await column('Goal or title')).toEqual(['break it']);
  });

  it('opens a run by its whole id, from the search field that / focuses', async () => {
    await page.goto(`${base}/console/runs`);
    await table().waitFor();
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Run id');
    await page.keyboard.type(failedRunId.slice(0, 8));
    await page.keyboard.press('Enter');
    await page.getByText(`None of your runs has the id “${failedRunId.slice(0, 8)}”`).waitFor();
    await page.getByLabel('Run id').fill(failedRunId);
    await page.getByLabel('Run id').press('Enter');
    await page.waitForURL(`**/console/agents/${checkerId}/runs/${failedRunId}`);
    await page.getByRole('heading', { level: 1, name: /Run 2/ }).waitFor();
    await page.getByTestId('timeline-step').first().locator('.badge').getByText('error').waitFor();
    // g r goes back to all runs.
    await page.keyboard.press('g');
    await page.keyboard.press('r');
    await page.waitForURL('**/console/runs');
  });

  it("shows a running run's steps live, each within a second, with its tool call's input and output", async () => {
    const runId = await start(reporterId, 'watch the timeline');
    await page.goto(`${base}/console/agents/${reporterId}/runs/${runId}`);
    const steps = page.getByTestId('timeline-step');
    await page.getByTestId('stream-state').getByText('live').waitFor();
    await steps.first().getByText('1. Fetch the status page').waitFor();
    expect(await steps.count()).toBe(1);
    await page.getByTestId('run-usage').getByText('1,000 tokens in, 100 out, 1 model call').waitFor();
    await page.getByText('The status page answers 200.').waitFor();
    const call = page.getByTestId('tool-call');
    await call.getByText('returned').waitFor();
    await call.locator('summary').click();
    await call.getByLabel('http_request input').getByText('"url": "https://status.example.test/"').waitFor();
    const output = call.getByLabel('http_request output');
    expect((await output.textContent())!.length).toBeLessThan(LONG_OUTPUT.length);
    await call.getByRole('button', { name: /Show all/ }).click();
    expect((await output.textContent())!.length).toBeGreaterThan(LONG_OUTPUT.length);
    for (const [i, next] of stepGates.entries()) {
      next.open();
      await steps.nth(i + 1).getByText(`Step after gate ${i + 1}`).waitFor({ timeout: 1000 });
      expect(await steps.count()).toBe(i + 2);
      expect(await page.getByTestId('run-steps').textContent()).toBe(String(i + 2));
    }
    await page.getByTestId('stream-state').getByText('ended').waitFor();
    await steps.last().locator('.badge').getByText('completed').waitFor();
    await page.getByRole('switch', { name: 'Raw events' }).check();
    await page.getByRole('list', { name: 'Run events' }).getByText('tool_result').waitFor();
    await page.getByRole('switch', { name: 'Raw events' }).uncheck();
    await call.locator('summary').click();
    await page.evaluate(() => window.scrollTo({ top: 0 }));
    await shot('run-timeline');
  });

  it('follows new events at the end of the page, unless the reader scrolled up: then a button jumps to them', async () => {
    const runId = await start(reporterId, 'follow me');
    await page.goto(`${base}/console/agents/${reporterId}/runs/${runId}`);
    const steps = page.getByTestId('timeline-step');
    await steps.nth(14).waitFor();
    const atEnd = () => page.evaluate(() => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80);
    const scrolled = () => page.evaluate(() => window.scrollY);
    await eventually('at the end of the page', atEnd, (end) => end);
    expect(await scrolled()).toBeGreaterThan(0);
    await page.evaluate(() => window.scrollTo({ top: 0 }));
    followGates[0]!.open();
    const jump = page.getByRole('button', { name: '3 new events — jump to latest' });
    await jump.waitFor();
    expect(await steps.count()).toBe(18);
    expect(await scrolled()).toBe(0);
    await shot('run-jump-to-latest');
    await jump.click();
    await eventually('at the end again', atEnd, (end) => end);
    await jump.waitFor({ state: 'detached' });
    followGates[1]!.open();
    await steps.nth(19).waitFor();
    await eventually('kept at the end', atEnd, (end) => end);
  });

  it('says what started a run: the schedule, linked to its tab', async () => {
    // A schedule needs a deployed agent: a build first.
    await http(base, 'POST', `/v1/agents/${checkerId}/runs`, { key: apiKey, body: { run_mode: 'build' } });
    await eventually('deployed', async () => (await http(base, 'GET', `/v1/agents/${checkerId}`, { key: apiKey })).body.agent.deployment_state, (s) => s === 'deployed');
    const schedule = await http(base, 'PUT', `/v1/agents/${checkerId}/schedule`, { key: apiKey, body: { cron: '0 0 * * * ? *', timezone: 'UTC' } });
    expect(schedule.status).toBe(200);
    const now = Date.now();
    const backfill = await http(base, 'POST', `/v1/agents/${checkerId}/schedule/backfill`, {
      key: apiKey,
      body: { from: new Date(now - 60 * 60_000).toISOString(), to: new Date(now - 1000).toISOString() },
    });
    expect(backfill.status).toBeLessThan(300);
    await page.goto(`${base}/console/runs?filter_trigger_kind=schedule`);
    // The backfilled fire, and the scheduler's own should an hour begin meanwhile.
    await eventually('the scheduled run', () => column('Agent'), (agents) => agents.length > 0 && agents.every((a) => a === 'Checker'));
    await table().getByRole('link', { name: /^Run \d+$/ }).first().click();
    const startedBy = page.getByTestId('run-started-by').getByRole('link', { name: 'the schedule' });
    await startedBy.click();
    await page.waitForURL(`**/console/agents/${checkerId}/schedule`);
  });

  it('replays a finished run with its input (on the current instructions when it recorded no version), and links the replay to it', async () => {
    await page.goto(`${base}/console/agents/${checkerId}/runs/${failedRunId}`);
    await page.getByRole('heading', { level: 1, name: /Run 2/ }).waitFor();
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay run 2?' });
    await dialog.locator('q', { hasText: 'break it' }).waitFor();
    // The checker had no instructions when that run started: only the current ones can be chosen.
    const original = dialog.getByRole('radio', { name: 'the version it ran (none was recorded)' });
    expect([await original.isDisabled(), await original.isChecked()]).toEqual([true, false]);
    expect(await dialog.getByRole('radio', { name: "the agent's current instructions" }).isChecked()).toBe(true);
    await stack.screenshot(page, 'console-run-replay-desktop');
    await dialog.getByRole('button', { name: 'Replay', exact: true }).click();
    await page.waitForURL((url) => url.pathname.startsWith(`/console/agents/${checkerId}/runs/`) && !url.pathname.endsWith(failedRunId));
    const replayId = page.url().split('/').pop()!;
    const origin = page.getByTestId('run-replay-of').getByRole('link');
    expect(await origin.textContent()).toBe(failedRunId);
    await page.getByTestId('timeline-step').first().getByText('trying').waitFor();
    const replay = (await http(base, 'GET', `/v1/agents/${checkerId}/runs/${replayId}`, { key: apiKey })).body.run;
    expect(replay).toMatchObject({ replay_of: failedRunId, goal: 'break it' });
    await origin.click();
    await page.waitForURL(`**/console/agents/${checkerId}/runs/${failedRunId}`);
    // The origin's page lists its replays: the one just made.
    await page.getByTestId('run-related').getByRole('link', { name: 'its replays' }).click();
    await page.waitForURL(`**/console/runs?filter_replay_of=${failedRunId}`);
    await page.getByTestId('linked-runs').getByText(failedRunId).waitFor();
    await eventually('the replay alone', () => table().getByRole('link', { name: /^Run \d+$/ }).evaluateAll((links) => links.map((a) => a.getAttribute('href'))), (hrefs) => hrefs.length === 1);
    expect(await table().getByRole('link', { name: /^Run \d+$/ }).getAttribute('href')).toBe(`/console/agents/${checkerId}/runs/${replayId}`);
    await page.getByRole('link', { name: 'show every run' }).click();
    await page.waitForURL((url) => url.pathname === '/console/runs' && !url.search.includes('filter_replay_of'));
    await page.getByTestId('linked-runs').waitFor({ state: 'detached' });
  });

  it('a stranger sees none of the first user’s runs, nor a run of theirs by its id', async () => {
    const eve = await stack.newPage();
    try {
      await stack.signInAsNewUser('eve@example.test', { page: eve });
      await eve.goto(`${base}/console/runs`);
      await eve.getByText('No runs yet.').waitFor();
      await eve.goto(`${base}/console/runs?filter_agent_id=${reporterId}`);
      await eve.getByText('No run matches these filters.').waitFor();
      await eve.getByLabel('Run id').fill(failedRunId);
      await eve.getByLabel('Run id').press('Enter');
      await eve.getByText(`None of your runs has the id “${failedRunId}”`).waitFor();
      expect(eve.url()).toContain('/console/runs');
    } finally {
      await eve.context().close();
    }
    expect(stack.pageErrors).toEqual([]);
  });
});
