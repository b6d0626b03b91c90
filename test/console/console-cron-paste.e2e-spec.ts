/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { ConsoleStack, PHONE } from '../support/console-stack';
import { eventually } from '../support/eventually';
import { expectProblem, http } from '../support/http';
import { lines } from '../support/test-runtime';
import { seriousViolations } from './axe-scan';

/*
 * Issue #30 item 6: the Schedule tab's cron field reads a pasted Unix (5-field) expression and
 * offers its Quartz (7-field) equivalent, or says why there is none; any expression is described
 * in plain English (cronstrue). The API still takes only 7 fields.
 *
 * CONSOLE_SCREENSHOTS=<dir> saves the field with a conversion offered, at desktop and phone width.
 */

describe('The console: a pasted Unix cron expression', () => {
  let stack: ConsoleStack;
  let base: string;
  let page: Page;
  let apiKey = '';
  let agentId = '';

  beforeAll(async () => {
    // en-GB: the fires read as a 24-hour clock. (The preview's 400 for a 5-field expression is no page error.)
    stack = await ConsoleStack.start({ runtime: true, context: { locale: 'en-GB', reducedMotion: 'reduce' } });
    ({ base, page } = stack);
    stack.runtime!.handler = lines({ type: 'instructions', content: 'Report.' }, { type: 'completed', outcome: 'success' });
    apiKey = await stack.createUser('ada@example.test');
    agentId = (await http(base, 'POST', '/v1/agents', { key: apiKey, body: {} })).body.agent.agent_id;
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: apiKey, body: { run_mode: 'build' } });
    await eventually('deployed', async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: apiKey })).body.agent.deployment_state, (s) => s === 'deployed');
    await stack.signIn(page, 'ada@example.test', `/agents/${agentId}/schedule`);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const cron = () => page.getByLabel(/^Cron/);
  /** The UTC weekdays (0 Sunday) of the five fires the page shows, once it shows them for `expression`. */
  async function firesFor(expression: string): Promise<number[]> {
    const api = await eventually('the preview', () => http(base, 'POST', '/v1/schedules/preview', { key: apiKey, body: { cron: expression, timezone: 'UTC' } }), (r) => r.status === 200);
    const shown = page.getByTestId('next-fires').locator('li');
    await eventually('the fires shown', () => shown.allTextContents(), (texts) => texts.length === 5 && texts[0] === new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short' }).format(new Date(api.body.upcoming[0])));
    return api.body.upcoming.map((ms: number) => new Date(ms).getUTCDay());
  }

  it('offers the Quartz equivalent of a pasted Unix expression, described in plain English, and sets it', async () => {
    await page.getByLabel('Timezone').fill('UTC');
    await cron().fill('30 9 * * 1-5');
    const help = page.getByTestId('cron-help');
    expect(await help.getByTestId('quartz-equivalent').textContent()).toBe('0 30 9 ? * 2-6 *');
    await help.getByText('“At 09:30, Monday through Friday”').waitFor();
    // The API is asked as it is typed, and says it takes 7 fields.
    await page.getByText('cron expression needs 7 fields').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await stack.screenshot(page, 'console-cron-paste-desktop', { fullPage: true });
    await stack.screenshot(page, 'console-cron-paste-phone', { viewport: PHONE, fullPage: true });
    await help.getByRole('button', { name: 'Use the Quartz expression' }).click();
    expect(await cron().inputValue()).toBe('0 30 9 ? * 2-6 *');
    await page.getByTestId('cron-description').getByText('“At 09:30, Monday through Friday”').waitFor();
    expect(await firesFor('0 30 9 ? * 2-6 *')).toEqual(expect.not.arrayContaining([0, 6]));
    await page.getByRole('button', { name: 'Set the schedule' }).click();
    await page.getByText('0 30 9 ? * 2-6 * UTC').waitFor();
    expect((await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: apiKey })).body.schedule.cron).toBe('0 30 9 ? * 2-6 *');
  });

  it('maps Sunday (0 and 7) and a range ending on it to what Quartz fires on the same days', async () => {
    await cron().fill('0 8 * * 5-7');
    expect(await page.getByTestId('quartz-equivalent').textContent()).toBe('0 0 8 ? * 6-7,1 *');
    await page.getByRole('button', { name: 'Use the Quartz expression' }).click();
    expect(new Set(await firesFor('0 0 8 ? * 6-7,1 *'))).toEqual(new Set([5, 6, 0]));
    await cron().fill('@weekly');
    expect(await page.getByTestId('quartz-equivalent').textContent()).toBe('0 0 0 ? * 1 *');
  });

  it('says when both day fields are restricted, which Quartz cannot express, and offers nothing', async () => {
    await cron().fill('0 0 13 * 5');
    await page.getByTestId('cron-help').getByText(/Both day fields are restricted \("13" and "5"\).*which Quartz cannot express/).waitFor();
    expect(await page.getByRole('button', { name: 'Use the Quartz expression' }).count()).toBe(0);
    await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate(() => document.documentElement.removeAttribute('data-theme'));
  });

  it('leaves the API taking 7 fields only', async () => {
    const five = await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: apiKey, body: { cron: '30 9 * * 1-5' } });
    expectProblem(five, 400);
    expect(five.body.detail).toMatch(/7 fields/);
    expect((await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: apiKey })).body.schedule.cron).toBe('0 30 9 ? * 2-6 *');
  });

  it('ran without script errors or CSP violations', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});
