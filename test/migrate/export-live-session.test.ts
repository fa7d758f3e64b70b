// A session Reasonix is writing to is exported as it stood when the export counted its messages: the batches
// appended between its two reads are left for the next export, never called damage (once, 6 exports in 7
// beside a running Reasonix failed with RX_DAMAGED_STORE).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSession } from '../../src/migrate/export-session.js';
import { openSession, type OpenedSession } from '../../src/store/open-session.js';
import { appendBatch, copySession } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { raw } from '../support/sessions/payload-rules.js';
import { tempDir } from '../support/temp-dir.js';

/** The session opened, with a batch appended by "Reasonix" as soon as the export's first read is done. */
async function writtenToDuringExport(dir: string): Promise<OpenedSession> {
  const opened = await openSession(dir);
  return {
    ...opened,
    read: async (options) => {
      const read = await opened.read(options);
      await appendBatch(dir, [
        raw('message/complete', '{"message":{"role":"user","id":"late-1","content":"written after the count"}}'),
      ]);
      return read;
    },
  };
}

describe('export of a session written to while it is exported', () => {
  it.each(['tool-calls', 'plain-chat'] as const)('%s: the messages counted, exit as usual', async (name) => {
    const dir = await copySession(fixture(name).dir);
    const before = await exportSession(await openSession(dir), { format: 'jsonl' });
    const to = join(await tempDir('rxstore-export-live-'), 'out.jsonl');
    const report = await exportSession(await writtenToDuringExport(dir), { to, format: 'jsonl' });
    expect(report.messages).toBe(before.messages);
    expect(await readFile(to, 'utf8')).toBe(before.document);
    // The next export has the message appended.
    const after = await exportSession(await openSession(dir), { format: 'jsonl' });
    expect(after.messages).toBe(before.messages + 1);
    expect(after.document).toContain('written after the count');
  });
});
