// A records cursor kept in a file by the library: the first read gives every record and keeps the
// cursor, the next gives only what is new, and a file that is no cursor is refused by its name.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CursorMismatchError, PathKindError, openLogSession, type RecordsSince } from '../../../src/index.js';
import { fixture } from '../../support/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

async function all(pieces: AsyncIterable<RecordsSince>): Promise<RecordsSince[]> {
  const got: RecordsSince[] = [];
  for await (const piece of pieces) got.push(piece);
  return got;
}

describe('an opened session keeps its records cursor in a file', () => {
  it('gives every record first, writes the cursor after the last batch, and nothing new on the next read', async () => {
    const session = await openLogSession(fixture('tool-calls').dir);
    const file = join(await tempDir('rxstore-cursor-file-'), 'cursor.json');
    const first = await all(session.recordsSinceFile(file));
    const records = first.flatMap((piece) => piece.records);
    const whole: unknown[] = [];
    for await (const record of session.records()) whole.push(record);
    expect(records.length).toBe(whole.length);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(first.at(-1)!.cursor);
    const again = await all(session.recordsSinceFile(file));
    expect(again.flatMap((piece) => piece.records)).toEqual([]);
  });

  it('refuses a file that is no cursor, naming it, and leaves it as it was', async () => {
    const session = await openLogSession(fixture('tool-calls').dir);
    const dir = await tempDir('rxstore-cursor-file-');
    const file = join(dir, 'cursor.json');
    await writeFile(file, 'not json\n');
    const error = await all(session.recordsSinceFile(file, { shown: 'cursor.json' })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CursorMismatchError);
    expect((error as CursorMismatchError).data.file).toBe(file);
    expect(await readFile(file, 'utf8')).toBe('not json\n');
    const folder = await all(session.recordsSinceFile(dir, { shown: 'the-folder' })).catch((caught: unknown) => caught);
    expect(folder).toBeInstanceOf(PathKindError);
    expect((folder as Error).message).toBe('the-folder: is a folder, a file is needed');
  });
});
