// An export of an opened session is written as its messages are read (memory does not grow with the
// session): it must be, byte for byte, the text an export of the session held whole gives, refuse
// what that refuses, and never pass off a session changed between its reads as the one it planned.
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportStream, openSession, type ExportFormat, type ExportView } from '../../src/index.js';
import { exportedText } from '../../src/migrate/export-session.js';
import { readJsonlSession } from '../../src/store/jsonl/read-jsonl-session.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { appendBatch, copySession } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { complete, typedMessage } from '../support/sessions/messages.js';
import { repoRoot } from '../support/paths.js';

/** What an export gives, or the refusal it ends in: its code and message. */
async function outcome(make: () => Promise<{ document: string; meta?: string; messages: number }>) {
  try {
    return await make();
  } catch (error) {
    return { refused: (error as { code?: string }).code, message: (error as Error).message };
  }
}

async function joined(pieces: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const piece of pieces) text += piece;
  return text;
}

const FORMATS: [ExportFormat, ExportView][] = [
  ['jsonl', 'canonical'],
  ['jsonl', 'person'],
  ['json', 'canonical'],
  ['json', 'person'],
];

describe('an export of an opened session, written as its messages are read', () => {
  it('is the text of the session held whole, for every fixture session, format and view', async () => {
    const fixtures = join(repoRoot, 'fixtures');
    const paths = readdirSync(fixtures, { recursive: true, encoding: 'utf8' })
      .filter((path) => basename(path) === 'events.frames' || path.endsWith('.jsonl'))
      .map((path) => join(fixtures, path.endsWith('.jsonl') ? path : join(path, '..')));
    expect(paths.length).toBeGreaterThan(8);
    // And one Reasonix refuses: a second message with an id already used.
    const damaged = await copySession(fixture('tool-calls').dir);
    await appendBatch(damaged, [complete(typedMessage('01Z0000000000000000000000A', 'first'))]);
    await appendBatch(damaged, [complete(typedMessage('01Z0000000000000000000000A', 'the id again'))]);
    paths.push(damaged);
    let refused = 0;
    for (const path of paths) {
      for (const [format, view] of FORMATS) {
        const options = { format, view, id: 'exported' };
        const whole = await outcome(async () =>
          exportedText(path.endsWith('.jsonl') ? await readJsonlSession(path) : await readSession(path), options),
        );
        const streamed = await outcome(async () => {
          const exported = await exportStream(await openSession(path), options);
          const document = await joined(exported.document);
          return {
            document,
            ...(exported.meta === undefined ? {} : { meta: exported.meta }),
            messages: exported.messages,
          };
        });
        expect(streamed, `${path} ${format} ${view}`).toEqual(whole);
        if ('refused' in whole) refused += 1;
      }
    }
    // The refusal is the same too.
    expect(refused).toBe(FORMATS.length);
  });

  it('gives the session as it stood when the export counted its messages, one appended since left for the next', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const before = await joined((await exportStream(await openSession(dir), { format: 'jsonl' })).document);
    const exported = await exportStream(await openSession(dir), { format: 'jsonl' });
    await appendBatch(dir, [complete(typedMessage('01Z0000000000000000000000A', 'written meanwhile'))]);
    expect(await joined(exported.document)).toBe(before);
    const next = await exportStream(await openSession(dir), { format: 'jsonl' });
    expect(next.messages).toBe(exported.messages + 1);
    expect(await joined(next.document)).toContain('written meanwhile');
  });
});
