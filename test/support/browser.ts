import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium); .ci/run installs it. No browser is ever downloaded. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, and quiet: no network of its own (this machine's network is closed) and no first-run work. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

const ROOT = path.resolve(__dirname, '..', '..');

/** Builds the console from the current sources into a directory of its own (a few seconds), for a gateway's CONSOLE_DIR. */
export function buildConsole(): { directory: string; remove: () => void } {
  const directory = mkdtempSync(path.join(tmpdir(), 'aas-console-'));
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', path.join(ROOT, 'apps', 'console', 'vite.config.ts'), '--outDir', directory, '--emptyOutDir', '--logLevel', 'error'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return { directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
