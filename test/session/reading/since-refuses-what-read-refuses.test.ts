import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLogSession } from '../../../src/store/open-session.js';
import { copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { drain } from '../../support/drain.js';

/**
 * What an indexer reads since a cursor is refused as the whole read refuses it: a session Reasonix refuses
 * for its directory or its log file (no manifest, one that is not JSON or names another session, a writer
 * lock it cannot use, no log, a log that is not a file) gives no batch and no record, but the coded error `read()` reports — never the log's records as
 * if the session were sound.
 */
const source = fixture('tool-calls');

const breakages: [string, (dir: string) => Promise<void>][] = [
  ['manifest.json removed', (dir) => rm(join(dir, 'manifest.json'))],
  [
    'manifest.json cut short',
    async (dir) =>
      writeFile(join(dir, 'manifest.json'), (await readFile(join(dir, 'manifest.json'), 'utf8')).slice(0, 20)),
  ],
  [
    'a manifest of another session',
    async (dir) => {
      const path = join(dir, 'manifest.json');
      await writeFile(
        path,
        JSON.stringify({ ...(JSON.parse(await readFile(path, 'utf8')) as object), sessionId: 'someone-else' }),
      );
    },
  ],
  ['events.frames removed', (dir) => rm(join(dir, 'events.frames'))],
  [
    'events.frames a directory',
    async (dir) => {
      await rm(join(dir, 'events.frames'));
      await mkdir(join(dir, 'events.frames'));
    },
  ],
  [
    'writer.lock a directory',
    async (dir) => {
      await rm(join(dir, 'writer.lock'), { force: true });
      await mkdir(join(dir, 'writer.lock'));
    },
  ],
];

describe('reading since a cursor refuses what the whole read refuses', () => {
  it.each(breakages)('%s', async (_, breakage) => {
    const dir = await copySession(source.dir);
    const session = await openLogSession(dir);
    // Before the breakage, a first read gives a cursor at the end.
    const before = await drain(session.recordsSince());
    expect(before.error).toBeUndefined();
    expect(before.items.length).toBeGreaterThan(0);
    await breakage(dir);
    const read = await (await openLogSession(dir)).read();
    expect(read.refusal).toBeDefined();
    const opened = await openLogSession(dir);
    for (const since of [opened.recordsSince(), opened.batchesSince()] as AsyncIterable<unknown>[]) {
      const { items, error } = await drain(since);
      expect(items).toEqual([]);
      expect(error).toMatchObject({ code: read.refusal!.code, message: read.refusal!.message });
    }
    // A cursor taken before the breakage, at the end of an unchanged log, has nothing new to give.
    const cursor = before.items.at(-1)!.cursor;
    expect((await drain(opened.recordsSince(cursor))).items).toEqual([]);
  });
});
