// `records()` and the messages of a JSONL transcript too large to read whole stream (the transcript read
// twice): they must give exactly the records and messages of the transcript held whole, in the same
// order, across runs of messages read apart, and end in the refusal `read()` reports after what precedes it.
import { cp, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IndexRecord } from '../../../src/index.js';
import { transcriptEntries, transcriptRecords } from '../../../src/store/jsonl/transcript-records.js';
import { heldWholeBoth, streamedBoth, type ReadTwoWays } from '../../support/sessions/records-two-ways.js';
import { readJsonlSession } from '../../../src/store/jsonl/read-jsonl-session.js';
import { fixture } from '../../support/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

const idOf = (path: string) => basename(path).replace(/\.jsonl$/, '');

/** The records and the messages of the transcript held whole (a replay that keeps every message), and its refusal. */
async function heldWhole(path: string): Promise<ReadTwoWays> {
  return heldWholeBoth(await readJsonlSession(path), idOf(path));
}

/**
 * What the streamed records and messages give (what `records()`, `transcript()` and `personView()` read
 * of a transcript too large to read whole, and of any once it is not held), and the code of the error
 * they end in.
 */
async function streamed(path: string): Promise<ReadTwoWays> {
  return streamedBoth(
    () => transcriptRecords(path, idOf(path)),
    () => transcriptEntries(path),
  );
}

const line = (message: object) => `${JSON.stringify(message)}\n`;

/**
 * Turns of a question, a call, its result of `outputBytes` and an answer, with the meta fixture's
 * transcript before them: long enough that runs of messages (a read chunk is 1 MiB) end between a call
 * and its result.
 */
function turns(count: number, outputBytes: number): string[] {
  const lines: string[] = [];
  for (let turn = 0; turn < count; turn += 1) {
    const call = `call_turn_${turn}`;
    lines.push(
      line({ role: 'user', content: `question ${turn}` }),
      line({
        role: 'assistant',
        content: '',
        tool_calls: [{ id: call, name: 'bash', arguments: `{"command":"cat ${turn}"}` }],
      }),
      line({
        role: 'tool',
        tool_call_id: call,
        name: 'bash',
        content: `${turn} `.repeat(outputBytes).slice(0, outputBytes),
      }),
      line({ role: 'assistant', content: `answer ${turn}` }),
    );
  }
  return lines;
}

/** A copy of the fixture's transcript (and its meta) with `lines` after its own. */
async function transcriptWith(lines: readonly string[]): Promise<string> {
  const source = join(
    fixture('jsonl-migrated').root,
    'projects/-tmp-rxstore-fixture-ws-jsonl-migrated/sessions/legacy-demo.jsonl',
  );
  const path = join(await tempDir('rxstore-transcript-records-'), 'legacy-demo.jsonl');
  await cp(`${source}.meta`, `${path}.meta`);
  await writeFile(path, `${await readFile(source, 'utf8')}${lines.join('')}`);
  return path;
}

describe('records() of a JSONL transcript streams the records of the transcript held whole', () => {
  it('of the fixture, and of one whose runs end between calls and their results', async () => {
    for (const path of [await transcriptWith([]), await transcriptWith(turns(400, 7_000))]) {
      const whole = await heldWhole(path);
      expect(whole.records.length).toBeGreaterThan(0);
      expect(await streamed(path), path).toEqual(whole);
    }
  });

  it.each([
    [
      'an id used again past the first megabyte',
      [
        line({ role: 'user', id: 'same', content: 'a' }),
        ...turns(200, 7_000),
        line({ role: 'user', id: 'same', content: 'b' }),
      ],
    ],
    [
      'a second result for one call',
      [...turns(200, 7_000), line({ role: 'tool', tool_call_id: 'call_turn_3', name: 'bash', content: 'again' })],
    ],
    ['a line that is not JSON past the first megabyte', [...turns(200, 7_000), '{"role":"user","content":\n']],
    [
      'calls in the nested form',
      [
        line({
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'n1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
        }),
        line({ role: 'tool', tool_call_id: 'n1', content: 'nested' }),
        ...turns(3, 10),
      ],
    ],
  ])('%s: the records before where Reasonix stops, then what read() reports', async (name, lines) => {
    const path = await transcriptWith(lines);
    const whole = await heldWhole(path);
    expect(whole.records.length).toBeGreaterThan(0);
    // Every case but the nested form is one Reasonix refuses.
    expect(whole.refusal !== undefined).toBe(!name.startsWith('calls in the nested form'));
    expect(await streamed(path)).toEqual(whole);
  });

  it('a transcript cut between the two reads ends in a coded error, never in a shorter list', async () => {
    const path = await transcriptWith(turns(400, 7_000));
    const whole = await heldWhole(path);
    const records: IndexRecord[] = [];
    const reading = transcriptRecords(path, idOf(path))[Symbol.asyncIterator]();
    const first = await reading.next();
    expect(first.done).toBe(false);
    records.push(first.value as IndexRecord);
    // The first pass has read it whole; the second is cut off after its first run.
    await writeFile(path, (await readFile(path, 'utf8')).slice(0, 1_500_000));
    const error = await (async () => {
      for (let next = await reading.next(); !next.done; next = await reading.next()) records.push(next.value);
    })().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ code: 'RX_DAMAGED_STORE', data: { file: path } });
    expect(records.length).toBeLessThan(whole.records.length);
  });

  it('a transcript written over between the reads, every message where it was, ends in a coded error, never in a mix', async () => {
    // Messages with ids of their own: the second read finds each where the first did, but for the words of the last.
    const said = (words: string) => [
      ...turns(200, 7_000),
      line({ role: 'user', id: '01Z0000000000000000000000A', content: words }),
    ];
    const path = await transcriptWith(said('the words first read'));
    const other = await transcriptWith(said('other words, as long'));
    const writtenOver = async () => {
      const first = await readJsonlSession(path, { keep: 'index' });
      await cp(other, path);
      return first;
    };
    for (const stream of [transcriptEntries(path, writtenOver), transcriptRecords(path, idOf(path), writtenOver)]) {
      const given: unknown[] = [];
      const error = await (async () => {
        for await (const item of stream as AsyncIterable<unknown>) given.push(item);
      })().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toMatchObject({ code: 'RX_DAMAGED_STORE', data: { file: path } });
      expect(given.length).toBeGreaterThan(0);
      await writeFile(path, (await readFile(other, 'utf8')).replace('other words, as long', 'the words first read'));
    }
  });
});
