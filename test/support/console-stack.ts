/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { runCli } from './admin-cli';
import { DESKTOP, PHONE, buildConsole, launchChromium } from './browser';
import { SystemOptions, TestSystem } from './test-system';
import { TestRuntime } from './test-runtime';

export { DESKTOP, PHONE };

/** Every user a console spec makes has this password. */
export const CONSOLE_PASSWORD = 'a long console password';
const RUNTIME_SECRET = 'runtime-secret-0123456789abcdef!';

export interface ConsoleStackOptions {
  /** The apps' settings; the gateway also gets the freshly built console (CONSOLE_DIR). */
  system?: SystemOptions;
  /** true: a scripted agent runtime (`stack.runtime`) that runs-service dispatches to. */
  runtime?: boolean;
  /** The main page's browser context (desktop viewport unless given). */
  context?: BrowserContextOptions;
}

export interface ScreenshotOptions {
  viewport?: { width: number; height: number };
  /** Sets `data-theme` for the shot, then puts back what was there; absent: the page's theme as it is. */
  theme?: 'light' | 'dark';
  fullPage?: boolean;
}

/**
 * What every console browser spec stands on: the console built from the current sources, the real
 * apps serving it, Debian's Chromium (one per file: a launch is cheap, a context per visitor), and a
 * main page whose script errors and CSP violations are collected for the spec's last check.
 */
export class ConsoleStack {
  /** The main page's script errors and console errors (4xx answers logged by Chromium left out). */
  readonly pageErrors: string[] = [];
  readonly base: string;

  private constructor(
    readonly system: TestSystem,
    readonly browser: Browser,
    readonly context: BrowserContext,
    readonly page: Page,
    readonly runtime: TestRuntime | undefined,
    private readonly built: ReturnType<typeof buildConsole>,
  ) {
    this.base = system.url();
    watchErrors(page, this.pageErrors);
  }

  static async start(options: ConsoleStackOptions = {}): Promise<ConsoleStack> {
    const built = buildConsole();
    // What started is undone, newest first, should a later part fail to start: no apps left running.
    const undo: Array<() => unknown> = [built.remove];
    try {
      const runtime = options.runtime ? await TestRuntime.start() : undefined;
      if (runtime) undo.unshift(() => runtime.close());
      const system = await TestSystem.start(withConsole(options.system ?? {}, built.directory, runtime));
      undo.unshift(() => system.stop());
      const browser = await launchChromium();
      undo.unshift(() => browser.close());
      const context = await browser.newContext({ viewport: DESKTOP, ...options.context });
      return new ConsoleStack(system, browser, context, await context.newPage(), runtime, built);
    } catch (error) {
      for (const step of undo) await step();
      throw error;
    }
  }

  /** A page in a context of its own (another person's browser); the caller closes its context. */
  async newPage(options: BrowserContextOptions = {}): Promise<Page> {
    const context = await this.browser.newContext({ viewport: DESKTOP, ...options });
    return context.newPage();
  }

  /** A user made with the admin CLI, with CONSOLE_PASSWORD; returns its API key. */
  async createUser(email: string): Promise<string> {
    const created = await runCli(this.system, ['users', 'create', '--email', email]);
    await runCli(this.system, ['users', 'set-password', '--email', email], CONSOLE_PASSWORD);
    return created.api_key;
  }

  /** Signs in through the login form, as a person does, and waits for where it leads: `next`, else the agents. */
  async signIn(page: Page, email: string, next?: string): Promise<void> {
    await page.goto(`${this.base}/console/login${next ? `?next=${encodeURIComponent(next)}` : ''}`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/console${next ?? '/agents'}`);
  }

  /** A new user, signed in on `page` (the main page unless given); returns its API key. */
  async signInAsNewUser(email: string, options: { page?: Page; next?: string } = {}): Promise<string> {
    const apiKey = await this.createUser(email);
    await this.signIn(options.page ?? this.page, email, options.next);
    return apiKey;
  }

  /** `<CONSOLE_SCREENSHOTS>/<name>.png` of the page at a width and in a theme, then the page as it was; nothing without CONSOLE_SCREENSHOTS. */
  async screenshot(page: Page, name: string, options: ScreenshotOptions = {}): Promise<void> {
    const directory = process.env.CONSOLE_SCREENSHOTS;
    if (!directory) return;
    mkdirSync(directory, { recursive: true });
    const viewport = page.viewportSize();
    const theme = await page.evaluate(() => document.documentElement.getAttribute('data-theme'));
    if (options.theme) await setTheme(page, options.theme);
    if (options.viewport) await page.setViewportSize(options.viewport);
    await page.screenshot({ path: path.join(directory, `${name}.png`), fullPage: options.fullPage ?? false });
    if (options.viewport && viewport) await page.setViewportSize(viewport);
    if (options.theme) await setTheme(page, theme);
  }

  /** Closes the browser, stops the apps and the runtime, removes the built console. */
  async stop(): Promise<void> {
    await this.browser.close();
    await this.system.stop();
    await this.runtime?.close();
    this.built.remove();
  }
}

function withConsole(options: SystemOptions, consoleDir: string, runtime: TestRuntime | undefined): SystemOptions {
  const runtimeEnv: Record<string, string> = runtime ? { AGENT_RUNTIME_URL: runtime.url, AGENT_RUNTIME_SECRET: RUNTIME_SECRET } : {};
  return {
    ...options,
    gatewayEnv: { CONSOLE_DIR: consoleDir, ...options.gatewayEnv },
    runsEnv: { ...runtimeEnv, ...options.runsEnv },
  };
}

function watchErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // A 4xx the console shows as its Problem Details (a wrong password, a quota) is logged by Chromium too: not a fault.
    if (message.type() === 'error' && !/the server responded with a status of 4\d\d/.test(message.text())) errors.push(message.text());
  });
}

/** Pico CSS follows `data-theme` on <html>; null removes it (the system's theme). */
async function setTheme(page: Page, theme: string | null): Promise<void> {
  await page.evaluate((t) => (t ? document.documentElement.setAttribute('data-theme', t) : document.documentElement.removeAttribute('data-theme')), theme);
}
