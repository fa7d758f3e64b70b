// A page's header (title, counts) is made from a first read of a JSONL transcript and its messages from
// a second: a transcript replaced between the two must never give a page of two transcripts with exit 0,
// and one appended to between them is shown as the first read found it.
import { appendFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSessionView, type ViewItem } from '../../src/site/session-view.js';
import { openSession } from '../../src/store/open-session.js';
import { tempDir } from '../support/temp-dir.js';

/** A transcript of `turns` questions and answers, each line marked with `mark`. */
function transcript(mark: string, turns: number): string {
  const lines: string[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    lines.push(JSON.stringify({ role: 'user', content: `${mark} question ${turn}` }));
    lines.push(JSON.stringify({ role: 'assistant', content: `${mark} answer ${turn}` }));
  }
  return `${lines.join('\n')}\n`;
}

async function drain(items: AsyncIterable<ViewItem>): Promise<string[]> {
  const texts: string[] = [];
  for await (const item of items) if (item.type === 'message') texts.push(item.text);
  return texts;
}

describe('view of a JSONL transcript replaced while its page is made', () => {
  it.each([
    ['small (read whole)', 40],
    ['larger than 8 MiB (read a run at a time)', 0],
  ])('%s: the page stops with RX_DAMAGED_STORE, never a header of one and messages of the other', async (_, turns) => {
    const dir = await tempDir('rxstore-view-changing-');
    const path = join(dir, 'talk.jsonl');
    // The larger one: long answers, so that few turns make more than 8 MiB.
    const first = turns > 0 ? transcript('first', turns) : transcript(`first ${'x'.repeat(100_000)}`, 45);
    const second = turns > 0 ? transcript('second', turns + 5) : transcript(`second ${'y'.repeat(100_000)}`, 50);
    await writeFile(path, first);
    const session = await openSession(path);
    const view = await readSessionView(session);
    expect(view.header.counts.messages).toBe((turns > 0 ? turns : 45) * 2);
    // Replaced as an editor saves: a new file renamed over the old one.
    await writeFile(join(dir, 'next.jsonl'), second);
    await rename(join(dir, 'next.jsonl'), path);
    const texts = await drain(view.items);
    expect(view.stoppedWith()?.code).toBe('RX_DAMAGED_STORE');
    expect(texts.every((text) => !text.startsWith('second'))).toBe(true);
  });

  it.each([
    ['small (read whole)', 40],
    ['larger than 8 MiB (read a run at a time)', 0],
  ])('%s, appended to between the reads: the messages the header counts, with no error', async (_, turns) => {
    const dir = await tempDir('rxstore-view-growing-');
    const path = join(dir, 'talk.jsonl');
    const count = turns > 0 ? turns : 45;
    await writeFile(path, turns > 0 ? transcript('first', turns) : transcript(`first ${'x'.repeat(100_000)}`, count));
    const session = await openSession(path);
    const view = await readSessionView(session);
    expect(view.header.counts.messages).toBe(count * 2);
    // Still written, as a transcript of an older Reasonix is: lines added after the first read.
    await appendFile(path, transcript('later', 3));
    const texts = await drain(view.items);
    expect(view.stoppedWith()).toBeUndefined();
    expect(texts).toHaveLength(count * 2);
    expect(texts.every((text) => !text.startsWith('later'))).toBe(true);
  });

  it('a transcript that stays as it was is shown whole, with no error', async () => {
    const path = join(await tempDir('rxstore-view-steady-'), 'talk.jsonl');
    await writeFile(path, transcript('only', 30));
    const view = await readSessionView(await openSession(path));
    const texts = await drain(view.items);
    expect(view.stoppedWith()).toBeUndefined();
    expect(texts).toHaveLength(60);
    expect(texts.at(-1)).toBe('only answer 29');
  });
});
