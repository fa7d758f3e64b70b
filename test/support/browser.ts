import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); `.ci/run` installs it. No browser is downloaded. */
export const CHROMIUM = process.env.RXSTORE_CHROMIUM ?? '/usr/bin/chromium';

export function chromiumPresent(): boolean {
  return existsSync(CHROMIUM);
}

export function chromiumAbsentMessage(): string {
  return `no Chromium at ${CHROMIUM} (apt-get install chromium, or set RXSTORE_CHROMIUM); the browser tests are skipped`;
}

export async function launchChromium(): Promise<Browser> {
  // The sandbox needs user namespaces, which a container running as root may not have.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** What a page did that a self-contained, inert page never does. */
export interface PageWatch {
  consoleErrors: string[];
  requests: string[];
  dialogs: string[];
}

/**
 * Opens a page of `html` from a file:// URL in a fresh context, recording console errors, page
 * errors, dialogs, and every request other than the page itself (each one is also refused).
 */
export async function openPage(
  browser: Browser,
  file: string,
  options: { javaScript?: boolean; colorScheme?: 'light' | 'dark' } = {},
): Promise<{ page: Page; watch: PageWatch }> {
  const context = await browser.newContext({
    javaScriptEnabled: options.javaScript ?? true,
    colorScheme: options.colorScheme ?? 'light',
    viewport: { width: 1000, height: 900 },
  });
  const page = await context.newPage();
  const url = `file://${file}`;
  const watch: PageWatch = { consoleErrors: [], requests: [], dialogs: [] };
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') watch.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => watch.consoleErrors.push(error.message));
  page.on('dialog', (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await context.route('**/*', (route) => {
    if (route.request().url() === url) return route.continue();
    watch.requests.push(route.request().url());
    return route.abort();
  });
  page.on('request', (request) => {
    if (request.url() !== url && !watch.requests.includes(request.url())) watch.requests.push(request.url());
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, watch };
}
