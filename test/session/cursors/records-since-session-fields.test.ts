// What describes a session changes over its life while its records keep the value at their commit:
// the stream says when. Checked on sessions the real Reasonix wrote: a fork titled after its first
// batches (`titled`, `reasonix serve`'s POST /fork-session writes `session/title` last), and a
// migrated transcript whose workspace is named only by its last turn (`jsonl-migrated`).
import { describe, expect, it } from 'vitest';
import {
  indexSince,
  machineRoots,
  openLogSession,
  type IndexRecord,
  type RecordsCursor,
  type SessionFields,
} from '../../../src/index.js';
import { fixture } from '../../support/fixtures.js';

/** The session read one batch at a time, each cursor kept as JSON: the fields each piece gave (or undefined), and its records. */
async function batchByBatch(
  dir: string,
): Promise<{ fields: (SessionFields | undefined)[]; records: IndexRecord[]; cursor: RecordsCursor }> {
  const session = await openLogSession(dir);
  const fields: (SessionFields | undefined)[] = [];
  const records: IndexRecord[] = [];
  let cursor: RecordsCursor | undefined;
  for (;;) {
    let read = false;
    for await (const piece of session.recordsSince(cursor, { maxBatches: 1, cursorAtEnd: true })) {
      read = true;
      fields.push(piece.session);
      for (const record of piece.records) if (record.type !== 'removed') records.push(record);
      cursor = JSON.parse(JSON.stringify(piece.cursor)) as RecordsCursor;
    }
    if (!read) return { fields, records, cursor: cursor! };
  }
}

async function whole(dir: string): Promise<IndexRecord[]> {
  const records: IndexRecord[] = [];
  for await (const record of (await openLogSession(dir)).records()) records.push(record);
  return records;
}

describe("a session's title and workspace as the record stream says them", () => {
  it('a fork Reasonix titles after its first batches: records before keep no title, a session change gives it, the cursor keeps it', async () => {
    const { dir, root } = fixture('titled');
    const { fields, records, cursor } = await batchByBatch(dir);
    const given = fields.filter((each): each is SessionFields => each !== undefined);
    expect(given[0]).toMatchObject({ title: null });
    expect(given.at(-1)).toEqual({
      title: 'Refactor plan (fork)',
      workspace: fixture('titled').workspace,
      status: 'ok',
    });
    expect(cursor.session).toEqual(given.at(-1));
    // Records committed before the title keep the session as it was then; records() of the whole has the title.
    expect(records.some((record) => record.title === null)).toBe(true);
    expect((await whole(dir)).every((record) => record.title === 'Refactor plan (fork)')).toBe(true);
    // indexSince says it too: the session's last piece names the title.
    const { inputs, roots } = await machineRoots({ stateHome: root, env: {}, homeDir: root });
    const pieces = [];
    for await (const piece of indexSince(roots.roots, { platform: inputs.platform }))
      if (piece.session.path === dir) pieces.push(piece);
    expect(pieces.at(-1)!.session).toMatchObject({
      title: 'Refactor plan (fork)',
      workspace: fixture('titled').workspace,
    });
  });

  it('a migrated transcript whose workspace comes at its end: records before keep none, a session change names it', async () => {
    const { dir, workspace } = fixture('jsonl-migrated');
    const { fields, records, cursor } = await batchByBatch(dir);
    const given = fields.filter((each): each is SessionFields => each !== undefined);
    expect(given[0]).toEqual({ title: null, workspace: null, status: 'ok' });
    expect(given.at(-1)).toEqual({ title: null, workspace, status: 'ok' });
    // Named only by a batch after the imported messages.
    expect(fields.findIndex((each) => each?.workspace === workspace)).toBeGreaterThan(0);
    expect(cursor.session).toEqual({ title: null, workspace, status: 'ok' });
    expect(records.filter((record) => record.workspace === null).length).toBeGreaterThan(0);
    expect((await whole(dir)).every((record) => record.workspace === workspace)).toBe(true);
  });
});
