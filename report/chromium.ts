/**
 * Headless Chromium (Debian's `chromium`) driven by playwright-core: writes the report's PNGs
 * and lets the tests look at the report as a reader would. Every launch gets a fresh profile
 * directory, removed afterwards, and flags that keep Chromium from talking to the network on
 * its own (updates, sync, field trials).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.FRAGBENCH_CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why Chromium cannot be used here, or undefined when it can. */
export function chromiumUnavailable(): string | undefined {
  if (!existsSync(CHROMIUM_PATH)) return `no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set FRAGBENCH_CHROMIUM)`;
  try {
    require.resolve('playwright-core');
  } catch {
    return 'the playwright-core package is not installed';
  }
  return undefined;
}

export interface Chromium {
  context: BrowserContext;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** A fresh headless Chromium; the caller closes it. */
export async function launchChromium(): Promise<Chromium> {
  const problem = chromiumUnavailable();
  if (problem) throw new Error(`cannot start Chromium: ${problem}`);
  // Loaded on demand: the report renders without it when PNGs are not wanted.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- in the CommonJS the process runs as (bin/ registers tsx for require only)
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  const profile = mkdtempSync(path.join(tmpdir(), 'fb-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}

/** Runs fn with a fresh headless Chromium context, closed afterwards. */
export async function withChromium<T>(fn: (context: BrowserContext) => Promise<T>): Promise<T> {
  const browser = await launchChromium();
  try {
    return await fn(browser.context);
  } finally {
    await browser.close();
  }
}
