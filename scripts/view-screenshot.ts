// npm run screenshot: the picture of `rxstore view` in README.md (the tool-calls fixture); RXSTORE_SCHEME=dark for the dark one.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { launchChromium, openPage } from '../test/support/browser.js';
import { fixture } from '../test/support/fixtures.js';

const work = await mkdtemp(join(tmpdir(), 'rxstore-screenshot-'));
try {
  const page = join(work, 'tool-calls.html');
  const code = await main(['view', fixture('tool-calls').dir, '--to', page]);
  if (code !== 0) throw new Error(`rxstore view exited ${code}`);
  await mkdir('docs', { recursive: true });
  const browser = await launchChromium();
  const scheme = process.env.RXSTORE_SCHEME === 'dark' ? 'dark' : 'light';
  const file = scheme === 'dark' ? 'docs/view-screenshot-dark.png' : 'docs/view-screenshot.png';
  {
    const { page: tab } = await openPage(browser, page, { colorScheme: scheme });
    await tab.setViewportSize({ width: 860, height: 1180 });
    // The failing command and the edit open, as a reader would open them.
    const calls = tab.locator('details.tool');
    await calls.nth(1).locator('summary').click();
    await calls.nth(4).locator('summary').click();
    await tab.locator('article.msg.user').nth(1).scrollIntoViewIfNeeded();
    await tab.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
    await tab.screenshot({ path: file, clip: { x: 0, y: 0, width: 860, height: 1180 } });
    await tab.context().close();
    console.log(`wrote ${file}`);
  }
  await browser.close();
} finally {
  await rm(work, { recursive: true, force: true });
}
