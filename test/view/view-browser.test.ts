// `rxstore view` pages in a real browser (Debian's Chromium, driven by playwright-core, nothing downloaded): offline, inert, readable.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersonMessage } from '../../src/session/replay/views.js';
import { openSession } from '../../src/store/open-session.js';
import { chromiumAbsentMessage, chromiumPresent, launchChromium, openPage } from '../support/browser.js';
import { FIXTURE_NAMES, fixture } from '../support/fixtures.js';
import { FENCE_MESSAGES, writeFenceSession } from '../support/sessions/fence-session.js';
import { HOSTILE, writeHostileSession } from '../support/sessions/hostile-session.js';
import { runCli } from '../support/inspect-json-schema.js';
import { buildStateRoot } from '../support/sessions/state-root.js';
import { tempDir } from '../support/temp-dir.js';

const present = chromiumPresent();

/** Writes a session's page with the CLI, as a user would. */
async function pageOf(sessionDir: string): Promise<string> {
  const file = join(await tempDir('rxstore-page-'), 'page.html');
  const result = await runCli(['view', sessionDir, '--to', file]);
  expect(result.code, result.stderr).toBe(0);
  return file;
}

async function personView(dir: string): Promise<PersonMessage[]> {
  const messages: PersonMessage[] = [];
  for await (const message of (await openSession(dir)).personView()) messages.push(message);
  return messages;
}

/** Text as the browser lays it out (collapsed whitespace), for comparing with what a session says. */
const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

describe.skipIf(!present)(`rxstore view in Chromium${present ? '' : ` — skipped: ${chromiumAbsentMessage()}`}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const name of FIXTURE_NAMES) {
    it(`${name}: every message is visible, tool calls start folded and open on click, no errors, no requests`, async () => {
      const { dir } = fixture(name);
      const people = await personView(dir);
      const { page, watch } = await openPage(browser, await pageOf(dir));

      // Messages said by the user, the assistant or the system prompt: one article each, in order, on screen.
      const said = people.filter(
        (message) => message.role !== 'tool' && (message.content !== '' || !message.toolCalls),
      );
      const articles = page.locator('article.msg');
      expect(await articles.count()).toBe(said.length);
      for (const [at, message] of said.entries()) {
        const article = articles.nth(at);
        expect(await article.isVisible(), `${message.role} message ${at}`).toBe(true);
        const start = flat(message.content).slice(0, 120);
        expect(flat(await article.innerText()), `${message.role} message ${at}`).toContain(start);
      }

      // Tool results: each call folded until clicked, then its output is on screen.
      const results = people.filter((message) => message.role === 'tool');
      const calls = page.locator('details.tool');
      expect(await calls.count()).toBe(people.flatMap((message) => message.toolCalls ?? []).length);
      for (const [at, result] of results.entries()) {
        const call = calls.nth(at);
        expect(await call.evaluate((element) => (element as unknown as { open: boolean }).open)).toBe(false);
        const output = call.locator('.part').last().locator('pre');
        expect(await output.isVisible()).toBe(false);
        await call.locator('summary').click();
        expect(await call.evaluate((element) => (element as unknown as { open: boolean }).open)).toBe(true);
        expect(await output.isVisible()).toBe(true);
        expect(flat(await output.innerText())).toContain(flat(result.content).slice(0, 80));
      }

      const shot = join(await tempDir('rxstore-shot-'), `${name}.png`);
      await page.screenshot({ path: shot, fullPage: true });
      expect((await stat(shot)).size).toBeGreaterThan(1000);
      expect(watch).toEqual({ consoleErrors: [], requests: [], dialogs: [] });
      await page.context().close();
    });
  }

  it('reads the same with JavaScript off: folds open by themselves, the buttons stay hidden', async () => {
    const { page, watch } = await openPage(browser, await pageOf(fixture('tool-calls').dir), { javaScript: false });
    expect(await page.locator('#controls').isVisible()).toBe(false);
    const call = page.locator('details.tool').first();
    await call.locator('summary').click();
    expect(await call.locator('pre').first().isVisible()).toBe(true);
    expect(watch).toEqual({ consoleErrors: [], requests: [], dialogs: [] });
    await page.context().close();
  });

  it('expand all opens every fold; collapse all closes them', async () => {
    const { page } = await openPage(browser, await pageOf(fixture('tool-calls').dir));
    await page.locator('#expand-all').click();
    expect(await page.locator('details:not([open])').count()).toBe(0);
    await page.locator('#collapse-all').click();
    expect(await page.locator('details[open]').count()).toBe(0);
    await page.context().close();
  });

  it('the fold of a long message says what a click does: the rest when closed, "Show less" when open, with or without script', async () => {
    for (const javaScript of [true, false]) {
      const { page } = await openPage(browser, await pageOf(fixture('tool-calls').dir), { javaScript });
      const fold = page.locator('article.msg.system details.more');
      const label = fold.locator('summary');
      expect(await label.innerText()).toMatch(/^Show [\d,]+ more lines \(\d+(\.\d)? [KM]?B in all\)$/);
      const closed = await label.innerText();
      await label.click();
      expect(await fold.evaluate((element) => (element as unknown as { open: boolean }).open)).toBe(true);
      expect(await label.innerText()).toBe('Show less');
      await label.click();
      expect(await label.innerText()).toBe(closed);
      await page.context().close();
    }
  });

  it('every character of a message whose fence lines carry text is on the screen', async () => {
    const { dir } = await writeFenceSession(join(await tempDir('rxstore-fences-'), 'sessions-v4'));
    const { page, watch } = await openPage(browser, await pageOf(dir));
    const articles = page.locator('article.msg:not(.system)');
    expect(await articles.count()).toBe(FENCE_MESSAGES.length);
    for (const [at, text] of FENCE_MESSAGES.entries()) {
      const body = articles.nth(at).locator('.body');
      expect(flat(await body.innerText())).toBe(flat(text));
    }
    expect(watch).toEqual({ consoleErrors: [], requests: [], dialogs: [] });
    await page.context().close();
  });

  it('the index of view --all fits its box at a desktop and a phone width, light and dark: no overflow, no header over another', async () => {
    const machine = await buildStateRoot();
    const site = await tempDir('rxstore-site-');
    await runCli(['view', '--all', '--to', site, '--state-home', machine.stateRoot]);
    const shots = await tempDir('rxstore-shot-');
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1200, 760, 420, 320]) {
        const { page, watch } = await openPage(browser, join(site, 'index.html'), { colorScheme });
        await page.setViewportSize({ width, height: 900 });
        const layout = await page.evaluate(() => {
          type Box = { left: number; right: number; top: number; bottom: number };
          type Element = {
            scrollWidth: number;
            clientWidth: number;
            getBoundingClientRect(): Box;
            textContent: string | null;
            checkVisibility(): boolean;
          };
          const doc = (
            globalThis as unknown as {
              document: {
                documentElement: Element;
                querySelector(selector: string): Element;
                querySelectorAll(selector: string): Element[];
                createRange(): { selectNodeContents(node: Element): void; getClientRects(): Box[] };
              };
            }
          ).document;
          const textBoxes = (element: Element) => {
            const range = doc.createRange();
            range.selectNodeContents(element);
            return [...range.getClientRects()].filter((box) => box.right > box.left);
          };
          const main = doc.querySelector('main');
          const tables = [...doc.querySelectorAll('table.sessions')];
          const cells = [...doc.querySelectorAll('table.sessions th, table.sessions td')].filter((cell) =>
            cell.checkVisibility(),
          );
          return {
            page: { scroll: doc.documentElement.scrollWidth, client: doc.documentElement.clientWidth },
            main: { scroll: main.scrollWidth, client: main.clientWidth, right: main.getBoundingClientRect().right },
            tables: tables.map((table) => ({
              scroll: table.scrollWidth,
              client: table.clientWidth,
              right: table.getBoundingClientRect().right,
            })),
            // Text that spills out of its cell: a header running into the next one, a badge cut off.
            spills: cells
              .filter(
                (cell) =>
                  cell.scrollWidth > cell.clientWidth ||
                  textBoxes(cell).some(
                    (box) =>
                      box.right > cell.getBoundingClientRect().right + 0.5 ||
                      box.left < cell.getBoundingClientRect().left - 0.5,
                  ),
              )
              .map((cell) => cell.textContent),
            // A time breaks only between its date and its clock: at most two lines.
            times: cells
              .filter((cell) => /^\d{4}-\d\d-\d\d /.test(cell.textContent ?? ''))
              .map((cell) => new Set(textBoxes(cell).map((box) => Math.round(box.top))).size),
          };
        });
        const where = `${colorScheme} at ${width} px`;
        expect(layout.page.scroll, where).toBeLessThanOrEqual(layout.page.client);
        expect(layout.main.scroll, where).toBeLessThanOrEqual(layout.main.client);
        expect(layout.tables.length, where).toBeGreaterThan(1);
        for (const table of layout.tables) {
          expect(table.scroll, where).toBeLessThanOrEqual(table.client);
          expect(table.right, where).toBeLessThanOrEqual(layout.main.right);
        }
        expect(layout.spills, where).toEqual([]);
        expect(layout.times.length, where).toBeGreaterThan(0);
        expect(Math.max(...layout.times), where).toBeLessThanOrEqual(2);
        await page.screenshot({ path: join(shots, `index-${colorScheme}-${width}.png`), fullPage: true });
        expect(watch).toEqual({ consoleErrors: [], requests: [], dialogs: [] });
        await page.context().close();
      }
    }
  });

  it('hostile HTML in messages, tool names, file names and the title never runs, loads or becomes markup', async () => {
    const { dir } = await writeHostileSession(join(await tempDir('rxstore-hostile-'), 'sessions-v4'));
    const { page, watch } = await openPage(browser, await pageOf(dir));
    // Open every fold and hover and click everything, so that any handler that got through would fire.
    await page.locator('#expand-all').click();
    for (const element of await page.locator('main *').all())
      await element.hover({ force: true, timeout: 1000 }).catch(() => undefined);
    for (const summary of await page.locator('summary').all()) await summary.click();
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator('img, svg, iframe, a, main script, main style').count()).toBe(0);
    expect(await page.title()).toBe(`</title>${HOSTILE.script}${HOSTILE.attribute} · Reasonix session`);
    const text = await page.locator('body').innerText();
    for (const hostile of [
      HOSTILE.script,
      HOSTILE.image,
      HOSTILE.svg,
      '<svg onload="window.__pwned=\'tool-name\'">',
      `src/${HOSTILE.image}.ts`,
    ])
      expect(text).toContain(hostile);
    expect(watch).toEqual({ consoleErrors: [], requests: [], dialogs: [] });
    await page.context().close();
  });
});
