/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { CONSOLE_PASSWORD as PASSWORD, ConsoleStack, PHONE } from '../support/console-stack';
import { eventually } from '../support/eventually';
import { http } from '../support/http';
import { lines } from '../support/test-runtime';
import { Receiver } from '../support/webhook-receiver';
import { seriousViolations } from './axe-scan';

/*
 * Issue #30 item 7: every page of the console passes axe-core (no serious or critical violation) in
 * the light and the dark theme; confirmations are dialogs; a deep link survives sign-in; relative
 * times tick; keyboard shortcuts.
 *
 * CONSOLE_SCREENSHOTS=<dir> saves the dialogs at desktop and phone width, light and dark.
 */
const THEMES = ['light', 'dark'] as const;

describe('The console, accessible', () => {
  let stack: ConsoleStack;
  let receiver: Receiver;
  let base: string;
  let page: Page;
  let apiKey = '';
  let agentId = '';
  let runId = '';
  let webhookId = '';
  let receiverUrl = '';

  beforeAll(async () => {
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    receiver.answer = (path) => ({ status: path === '/failing' ? 503 : 204 });
    stack = await ConsoleStack.start({
      runtime: true,
      system: { webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } },
      // Reduced motion: Pico CSS then skips its colour transitions, so a theme switch is complete when axe looks.
      context: { reducedMotion: 'reduce' },
    });
    ({ base, page } = stack);
    const runtime = stack.runtime!;
    runtime.handler = lines({ type: 'step', title: 'one step' }, { type: 'completed', outcome: 'success', summary: 'done' });
    // A run that goes on until it is cancelled (the runtime's connection closed).
    runtime.script('hold on', async (reply) => {
      reply.line({ type: 'step', title: 'waiting' });
      await reply.closed;
    });
    runtime.script(
      'use a tool',
      lines(
        { type: 'step', title: 'fetch' },
        { type: 'tool_call', call_id: 'c1', tool: 'http_request', input: { method: 'GET', url: 'https://example.test/' } },
        { type: 'tool_result', call_id: 'c1', tool: 'http_request', output: JSON.stringify({ status: 200, body: 'y'.repeat(3000) }), truncated: true, is_error: false },
        { type: 'message', text: 'Fetched.' },
        { type: 'usage', model: 'model-1', input_tokens: 10, output_tokens: 5 },
        { type: 'completed', outcome: 'success', summary: 'done' },
      ),
    );
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  /** The page in both themes: no serious or critical axe-core violation in either. */
  async function expectAccessible(what: string): Promise<void> {
    const found: Record<string, unknown> = {};
    for (const theme of THEMES) {
      await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme);
      const violations = await seriousViolations(page);
      if (violations.length > 0) found[theme] = violations;
    }
    await page.evaluate(() => document.documentElement.removeAttribute('data-theme'));
    expect({ page: what, violations: found }).toEqual({ page: what, violations: {} });
  }

  /** The page as it is, light at desktop width and dark at phone width (only with CONSOLE_SCREENSHOTS). */
  async function shot(name: string): Promise<void> {
    await stack.screenshot(page, `${name}-desktop`, { theme: 'light' });
    await stack.screenshot(page, `${name}-dark-phone`, { theme: 'dark', viewport: PHONE });
  }

  it('first-run setup and sign-in pages', async () => {
    await page.goto(`${base}/console/`);
    await page.waitForURL('**/console/setup');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expectAccessible('setup');
    apiKey = await stack.createUser('ada@example.test');
    await page.goto(`${base}/console/login`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await expectAccessible('login');
    await page.getByLabel('Email').fill('ada@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/console/agents');
  });

  it('every signed-in page', async () => {
    agentId = (await http(base, 'POST', '/v1/agents', { key: apiKey, body: {} })).body.agent.agent_id;
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: apiKey, body: { run_mode: 'build' } });
    await eventually('deployed', async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: apiKey })).body.agent.deployment_state, (s) => s === 'deployed');
    webhookId = (await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: apiKey, body: { url: `${receiverUrl}/failing`, events: ['run.completed'] } })).body.webhook_id;
    // A paused schedule for the Schedule tab: PUT sets it (the spec's body has no paused), pause pauses it.
    const schedule = await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: apiKey, body: { cron: '0 0 9 ? * MON-FRI *', timezone: 'Europe/Paris' } });
    expect({ status: schedule.status, body: schedule.body }).toEqual({ status: 200, body: { success: true, error: null } });
    const paused = await http(base, 'POST', `/v1/agents/${agentId}/schedule/pause`, { key: apiKey });
    expect({ status: paused.status, body: paused.body }).toEqual({ status: 200, body: { success: true, error: null } });
    runId = (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: apiKey, body: { user_message: 'a run' } })).body.run.run_id;
    await eventually('a failed delivery', () => receiver.on('/failing').length, (n) => n >= 1);
    await http(base, 'POST', `/v1/workspaces`, { key: apiKey, body: { name: 'Nightly' } });
    const pages: Array<[string, string, string]> = [
      ['agents', '/agents', 'All agents'],
      ['runs tab', `/agents/${agentId}`, ''],
      ['instructions', `/agents/${agentId}/instructions`, ''],
      ['schedule', `/agents/${agentId}/schedule`, ''],
      ['triggers', `/agents/${agentId}/triggers`, ''],
      ['webhooks', `/agents/${agentId}/webhooks`, ''],
      ['deliveries', `/agents/${agentId}/webhooks/${webhookId}`, 'Deliveries'],
      ['run', `/agents/${agentId}/runs/${runId}`, ''],
      ['all runs', '/runs', ''],
      ['all runs, none match', '/runs?filter_status=paused', ''],
      ['api keys', '/settings/api-keys', ''],
      ['not found', '/nowhere', ''],
    ];
    for (const [what, path] of pages) {
      await page.goto(`${base}/console${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
      await expectAccessible(what);
    }
  });

  it("follows the system's dark theme (prefers-color-scheme) as it does the chosen one", async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await page.goto(`${base}/console/agents/${agentId}/webhooks`);
      await page.getByTestId('webhook-health').waitFor();
      expect(await page.evaluate(() => document.documentElement.hasAttribute('data-theme'))).toBe(false);
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe('rgb(255, 255, 255)');
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it("the run page's timeline with a tool call open and its output whole, and the raw events", async () => {
    const used = (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: apiKey, body: { user_message: 'use a tool' } })).body.run.run_id;
    await page.goto(`${base}/console/agents/${agentId}/runs/${used}`);
    await page.getByTestId('stream-state').getByText('ended').waitFor();
    await page.getByTestId('tool-call').locator('summary').click();
    await page.getByRole('button', { name: /Show all/ }).click();
    await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
    await expectAccessible('run timeline, tool call open');
    await page.getByRole('switch', { name: 'Raw events' }).check();
    await page.getByRole('list', { name: 'Run events' }).waitFor();
    await expectAccessible('run, raw events');
  });

  it('keeps a deep link through sign-in', async () => {
    const tab = await stack.newPage({ reducedMotion: 'reduce' });
    try {
      const deep = `/console/agents/${agentId}/webhooks/${webhookId}?status=failed`;
      await tab.goto(`${base}${deep}`);
      await tab.waitForURL(/\/console\/login\?next=/);
      await tab.getByLabel('Email').fill('ada@example.test');
      await tab.getByLabel('Password').fill(PASSWORD);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.waitForURL(`${base}${deep}`);
      await tab.getByRole('heading', { level: 1, name: 'Deliveries' }).waitFor();
      // Another site's address in ?next= is not followed.
      await tab.getByRole('button', { name: 'Sign out' }).click();
      await tab.goto(`${base}/console/login?next=${encodeURIComponent('//evil.example/x')}`);
      await tab.getByLabel('Email').fill('ada@example.test');
      await tab.getByLabel('Password').fill(PASSWORD);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.waitForURL(`${base}/console/agents`);
    } finally {
      await tab.context().close();
    }
  });

  it('ticks relative times without a reload', async () => {
    await page.goto(`${base}/console/agents/${agentId}/runs/${runId}`);
    const started = page.locator('.facts time').first();
    await started.waitFor();
    const first = await started.textContent();
    expect(first).toMatch(/ago$/);
    await eventually('the time to move on', () => started.textContent(), (text) => text !== first, 5000);
  });

  it('asks before cancelling a run, in a dialog that Escape closes', async () => {
    const held = (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: apiKey, body: { user_message: 'hold on' } })).body.run;
    await page.goto(`${base}/console/agents/${agentId}/runs/${held.run_id}`);
    await page.getByTestId('stream-state').getByText('live').waitFor();
    const cancel = page.getByRole('button', { name: 'Cancel run' });
    await cancel.click();
    const dialog = page.getByRole('dialog', { name: `Cancel run ${held.run_number}?` });
    await dialog.getByText('The agent is stopped where it is').waitFor();
    // Focus is in the dialog, on the harmless choice.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep it running');
    await expectAccessible('run, cancel dialog open');
    await shot('console-confirm-cancel-run');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await cancel.evaluate((el) => el === document.activeElement)).toBe(true);
    expect((await http(base, 'GET', `/v1/agents/${agentId}/runs/${held.run_id}`, { key: apiKey })).body.run.is_finished).toBe(false);
    await cancel.click();
    await dialog.getByRole('button', { name: 'Cancel the run' }).click();
    await page.getByTestId('stream-state').getByText('ended').waitFor();
    expect((await http(base, 'GET', `/v1/agents/${agentId}/runs/${held.run_id}`, { key: apiKey })).body.run.status).toBe('stopped');
  });

  it('has keyboard shortcuts: / searches, g a goes to the agents, ? lists them', async () => {
    await page.goto(`${base}/console/agents/${agentId}`);
    await page.getByRole('table', { name: 'Runs' }).waitFor();
    await page.keyboard.press('/');
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.closest('label')?.textContent)).toBe('Goal contains');
    await page.keyboard.type('g a');
    expect(page.url()).toMatch(/\/console\/agents\/[0-9a-f-]{36}$/); // typed into the field: text, not a shortcut
    await page.locator('h1').click();
    await page.keyboard.press('g');
    await page.keyboard.press('a');
    await page.waitForURL(`${base}/console/agents`);
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    const listed = await help.locator('tbody tr td:first-child').allTextContents();
    expect(listed).toEqual(['/', 'g then a', 'g then r', 'g then k', '?']);
    await expectAccessible('keyboard shortcuts dialog');
    await shot('console-shortcuts');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });
  });

  it('deletes a workspace with its agents only once its name is typed', async () => {
    const doomed = (await http(base, 'POST', '/v1/agents', { key: apiKey, body: {} })).body.agent.agent_id;
    const workspaceId = (await http(base, 'POST', '/v1/workspaces', { key: apiKey, body: { name: 'Old jobs' } })).body.workspace.workspace_id;
    await http(base, 'POST', `/v1/agents/${doomed}/move`, { key: apiKey, body: { workspace_id: workspaceId } });
    await page.goto(`${base}/console/agents`);
    await page.getByRole('button', { name: 'Delete Old jobs' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the workspace Old jobs?' });
    await dialog.getByText('Its agent, with its runs, schedule, triggers and webhooks, is deleted with it.').waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete workspace and agents' });
    expect(await confirm.isDisabled()).toBe(true);
    await expectAccessible('agents, typed confirmation open');
    await dialog.getByLabel('Type Old jobs to confirm').fill('old jobs');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type Old jobs to confirm').fill('Old jobs');
    await shot('console-confirm-workspace');
    await confirm.click();
    await page.getByRole('button', { name: 'Delete Old jobs' }).waitFor({ state: 'detached' });
    expect((await http(base, 'GET', `/v1/agents/${doomed}`, { key: apiKey })).status).toBe(404);
    expect((await http(base, 'GET', `/v1/agents/${agentId}`, { key: apiKey })).status).toBe(200);
  });

  it('ran without script errors or CSP violations', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});
