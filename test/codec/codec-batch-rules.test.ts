// Each rule the batch reader enforces (spec §4, §5), alone: a batch whose records break one rule but
// whose checksum is right for what it says, so only that rule can refuse it.
import { createHash } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DamagedStoreError, UnsupportedVersionError } from '../../src/errors/index.js';
import { encodeFrame } from '../../src/codec/frame.js';
import { readBatches, type LogItem, type ReadBatchesOptions } from '../../src/codec/read-batches.js';
import { readFrames } from '../../src/codec/read-frames.js';
import { readLogBatches } from '../../src/codec/read-log.js';
import { V4_CODEC } from '../../src/codec/records.js';
import { tempDir } from '../support/temp-dir.js';

type Json = Record<string, unknown>;

const envelope = (recordType: string) => ({ schemaVersion: 4, codec: V4_CODEC, recordType });

/** The records of one batch of `kinds` starting at `firstSeq`; `tamper` edits them before the checksum is taken. */
function batchRecords(
  firstSeq: number,
  kinds: string[],
  tamper: (records: Json[]) => void = () => undefined,
  commitId = `commit-${firstSeq}`,
): Json[] {
  const records: Json[] = [
    {
      ...envelope('batch/begin'),
      commitId,
      operationId: `op-${firstSeq}`,
      operationHash: `hash-${firstSeq}`,
      firstSeq,
      eventCount: kinds.length,
      writerGeneration: 1,
      createdAt: '2026-12-01T09:00:00Z',
    },
    ...kinds.map((kind, index) => ({
      ...envelope('batch/event'),
      createdAt: '0001-01-01T00:00:00Z',
      event: {
        id: `event-${firstSeq + index}`,
        seq: firstSeq + index,
        kind,
        payload: Buffer.from(JSON.stringify({ title: kind })).toString('base64'),
      },
    })),
  ];
  tamper(records);
  const digest = createHash('sha256');
  for (const record of records) digest.update(JSON.stringify(record)).update(Buffer.from([0]));
  records.push({
    ...envelope('batch/end'),
    commitId,
    firstSeq,
    eventCount: kinds.length,
    createdAt: '0001-01-01T00:00:00Z',
    sha256: digest.digest('hex'),
  });
  return records;
}

/** A record as its bytes: a Buffer is framed as it is (for records that are not JSON objects). */
const recordBytes = (record: Json | Buffer) => (Buffer.isBuffer(record) ? record : Buffer.from(JSON.stringify(record)));

async function read(
  records: (Json | Buffer)[],
  options: ReadBatchesOptions = {},
  cutLastBytes = 0,
): Promise<LogItem[]> {
  const log = Buffer.concat(records.map((record) => encodeFrame(recordBytes(record))));
  const bytes = log.subarray(0, log.length - cutLastBytes);
  const items: LogItem[] = [];
  for await (const item of readBatches(
    readFrames(
      (async function* () {
        yield bytes;
      })(),
      { file: 'log' },
    ),
    { file: 'log', ...options },
  ))
    items.push(item);
  return items;
}

/** The records as a log file, read as a reader of a session reads it. */
async function readFile(records: Json[]): Promise<LogItem[]> {
  const log = join(await tempDir(), 'events.frames');
  await writeFile(log, Buffer.concat(records.map((record) => encodeFrame(recordBytes(record)))));
  const items: LogItem[] = [];
  for await (const item of readLogBatches(log)) items.push(item);
  return items;
}

/** Offset of the n-th frame of the records. */
const offsetOf = (records: (Json | Buffer)[], n: number) =>
  records.slice(0, n).reduce((sum, record) => sum + encodeFrame(recordBytes(record)).length, 0);

const edit = (index: number, change: (record: Json) => void) => (records: Json[]) => change(records[index]!);
const editEvent = (index: number, change: (event: Json) => void) =>
  edit(index, (record) => change(record.event as Json));

interface Refusal {
  name: string;
  records: () => (Json | Buffer)[];
  /** Which frame the error names. */
  frame: number;
  error: typeof DamagedStoreError | typeof UnsupportedVersionError;
  message: RegExp;
  /** What the error's data tells besides the file and offset (what `--json` shows). */
  data?: Json;
}

const BOUNDARY_EXPECTED =
  'firstSeq 1, non-empty commitId/operationId/operationHash, writerGeneration ≥ 1, eventCount ≥ 1';

const two = ['session/title', 'session/title'];

const refusals: Refusal[] = [
  ...(['commitId', 'operationId', 'operationHash'] as const).map((field) => ({
    name: `a batch/begin with an empty ${field}`,
    records: () =>
      batchRecords(
        1,
        two,
        edit(0, (begin) => (begin[field] = '')),
      ),
    frame: 0,
    error: DamagedStoreError,
    message: /^invalid v4 batch boundary at sequence 1$/,
  })),
  {
    name: 'a batch/begin with writerGeneration 0',
    records: () =>
      batchRecords(
        1,
        two,
        edit(0, (begin) => (begin.writerGeneration = 0)),
      ),
    frame: 0,
    error: DamagedStoreError,
    message: /^invalid v4 batch boundary at sequence 1$/,
  },
  {
    name: 'a batch/begin with eventCount 0',
    records: () => batchRecords(1, [], () => undefined),
    frame: 0,
    error: DamagedStoreError,
    message: /^invalid v4 batch boundary at sequence 1$/,
  },
  {
    name: 'a batch/begin with a negative eventCount',
    records: () =>
      batchRecords(
        1,
        two,
        edit(0, (begin) => (begin.eventCount = -1)),
      ),
    frame: 0,
    error: DamagedStoreError,
    message: /^invalid v4 batch boundary at sequence 1$/,
  },
  {
    name: 'a first batch starting at sequence 2',
    records: () => batchRecords(2, two),
    frame: 0,
    error: DamagedStoreError,
    message: /^invalid v4 batch boundary at sequence 1$/,
    data: { sequence: 1, expected: BOUNDARY_EXPECTED, found: 'firstSeq 2' },
  },
  {
    name: 'a batch/begin without a firstSeq',
    records: () =>
      batchRecords(
        1,
        two,
        edit(0, (begin) => delete begin.firstSeq),
      ),
    frame: 0,
    error: DamagedStoreError,
    message: /^invalid v4 batch boundary at sequence 1$/,
    data: { sequence: 1, expected: BOUNDARY_EXPECTED, found: 'firstSeq 0' },
  },
  {
    name: 'a batch/begin inside an open batch',
    records: () => {
      const records = batchRecords(1, two);
      return [records[0]!, records[1]!, ...batchRecords(2, ['session/title'])];
    },
    frame: 2,
    error: DamagedStoreError,
    message: /^nested v4 batch at \d+$/,
    data: { commitId: 'commit-1' },
  },
  {
    name: 'an event without a kind',
    records: () =>
      batchRecords(
        1,
        two,
        editEvent(1, (event) => delete event.kind),
      ),
    frame: 1,
    error: DamagedStoreError,
    message: /^invalid v4 event at sequence 1$/,
  },
  {
    name: 'an event without a seq',
    records: () =>
      batchRecords(
        1,
        two,
        editEvent(1, (event) => delete event.seq),
      ),
    frame: 1,
    error: DamagedStoreError,
    message: /^invalid v4 event at sequence 1$/,
    data: { sequence: 1, commitId: 'commit-1', found: 'seq 0' },
  },
  {
    name: 'an event without an id',
    records: () =>
      batchRecords(
        1,
        two,
        editEvent(2, (event) => delete event.id),
      ),
    frame: 2,
    error: DamagedStoreError,
    message: /^invalid v4 event at sequence 2$/,
  },
  {
    name: 'an event whose kind is blank',
    records: () =>
      batchRecords(
        1,
        two,
        editEvent(1, (event) => (event.kind = '  ')),
      ),
    frame: 1,
    error: DamagedStoreError,
    message: /^invalid v4 event at sequence 1$/,
  },
  {
    name: 'an event with both a payload and a payloadRef',
    records: () =>
      batchRecords(
        1,
        two,
        editEvent(1, (event) => (event.payloadRef = { digest: 'a'.repeat(64), bytes: 1 })),
      ),
    frame: 1,
    error: DamagedStoreError,
    message: /^invalid v4 event at sequence 1$/,
  },
  {
    name: 'an event at a sequence one too low',
    records: () =>
      batchRecords(
        1,
        two,
        editEvent(2, (event) => (event.seq = 1)),
      ),
    frame: 2,
    error: DamagedStoreError,
    message: /^invalid v4 event at sequence 2$/,
    data: { sequence: 2, commitId: 'commit-1', found: 'seq 1' },
  },
  {
    name: 'more events than the begin counts',
    records: () =>
      batchRecords(1, two, (records) =>
        records.push({ ...records[2]!, event: { ...(records[2]!.event as Json), seq: 3, id: 'extra' } }),
      ),
    frame: 3,
    error: DamagedStoreError,
    message: /^v4 event outside batch at \d+$/,
  },
  {
    name: 'a batch/end before the last event',
    records: () => {
      const records = batchRecords(1, two);
      return [records[0]!, records[1]!, records[3]!];
    },
    frame: 2,
    error: DamagedStoreError,
    message: /^invalid v4 batch end at \d+$/,
  },
  {
    name: 'a batch/end with another firstSeq',
    records: () => {
      const records = batchRecords(1, two);
      records[3]!.firstSeq = 2;
      return records;
    },
    frame: 3,
    error: DamagedStoreError,
    message: /^invalid v4 batch end at \d+$/,
    data: { commitId: 'commit-1' },
  },
  {
    name: 'a batch/end whose sha256 is a number',
    records: () => {
      const records = batchRecords(1, two);
      records[3]!.sha256 = 5;
      return records;
    },
    frame: 3,
    error: DamagedStoreError,
    message: /^decode v4 record at \d+: batch\/end: sha256: /,
  },
  {
    name: 'a batch/end with no batch open',
    records: () => batchRecords(1, two).slice(1),
    frame: 0,
    error: DamagedStoreError,
    message: /^v4 event outside batch at 0$/,
  },
  {
    name: 'a lone batch/end',
    records: () => batchRecords(1, two).slice(3),
    frame: 0,
    error: DamagedStoreError,
    message: /^invalid v4 batch end at 0$/,
  },
  {
    name: 'a batch/end whose sha256 is missing',
    records: () => {
      const records = batchRecords(1, two);
      delete records[3]!.sha256;
      return records;
    },
    frame: 3,
    error: DamagedStoreError,
    message: /^v4 batch commit-1 checksum is , expected [0-9a-f]{64}$/,
    data: { commitId: 'commit-1', expected: expect.stringMatching(/^[0-9a-f]{64}$/), found: '' },
  },
  {
    name: 'a batch/end whose sha256 is another',
    records: () => {
      const records = batchRecords(1, two);
      records[3]!.sha256 = 'f'.repeat(64);
      return records;
    },
    frame: 3,
    error: DamagedStoreError,
    message: new RegExp(`^v4 batch commit-1 checksum is ${'f'.repeat(64)}, expected [0-9a-f]{64}$`),
    data: { commitId: 'commit-1', expected: expect.stringMatching(/^[0-9a-f]{64}$/), found: 'f'.repeat(64) },
  },
  {
    name: 'a record without a schemaVersion',
    records: () =>
      batchRecords(
        1,
        two,
        edit(1, (record) => delete record.schemaVersion),
      ),
    frame: 1,
    error: UnsupportedVersionError,
    message: /^v4 physical record at \d+$/,
    data: { expected: `schemaVersion 4, codec ${V4_CODEC}` },
  },
  {
    name: 'a record without a recordType',
    records: () =>
      batchRecords(
        1,
        two,
        edit(1, (record) => delete record.recordType),
      ),
    frame: 1,
    error: UnsupportedVersionError,
    message: /^unknown v4 physical record ""$/,
    data: { found: '' },
  },
  {
    name: 'a record of another type',
    records: () =>
      batchRecords(
        1,
        two,
        edit(1, (record) => (record.recordType = 'batch/note')),
      ),
    frame: 1,
    error: UnsupportedVersionError,
    message: /^unknown v4 physical record "batch\/note"$/,
    data: { found: 'batch/note' },
  },
  ...(['[]', 'null', '7', '"text"'] as const).map((json) => ({
    name: `a record that is ${json}, not an object`,
    records: () => [...batchRecords(1, two).slice(0, 2), Buffer.from(json)],
    frame: 2,
    error: DamagedStoreError,
    message: /^decode v4 record at \d+: not a JSON object$/,
  })),
  {
    name: 'a record that is not JSON',
    records: () => [...batchRecords(1, two).slice(0, 2), Buffer.from('{"recordType": ')],
    frame: 2,
    error: DamagedStoreError,
    message: /^decode v4 record at \d+: (?!not a JSON object)\S/,
  },
  {
    name: 'an unknown required event kind',
    records: () => batchRecords(1, ['future/thing']),
    frame: 1,
    error: UnsupportedVersionError,
    message: /^unknown required event "future\/thing"$/,
  },
  {
    name: 'a begin whose firstSeq is a string',
    records: () =>
      batchRecords(
        1,
        two,
        edit(0, (begin) => (begin.firstSeq = '1')),
      ),
    frame: 0,
    error: DamagedStoreError,
    message: /^decode v4 record at 0: batch\/begin: firstSeq: /,
  },
  {
    // The schema sees the number 2; only the text says Go refuses it (record-fields-match-reasonix).
    name: 'a begin whose eventCount is written 2.0',
    records: () => {
      const [begin, ...rest] = batchRecords(1, two);
      return [Buffer.from(JSON.stringify(begin).replace('"eventCount":2', '"eventCount":2.0')), ...rest];
    },
    frame: 0,
    error: DamagedStoreError,
    message:
      /^decode v4 record at 0: batch\/begin: eventCount: cannot unmarshal number 2\.0 into Go value of type int$/,
  },
  {
    // Go's zero digest names no object (record-fields-match-reasonix has Reasonix's verdict).
    name: 'an event whose payloadRef has no digest',
    records: () =>
      batchRecords(
        1,
        two,
        editEvent(1, (event) => {
          delete event.payload;
          event.payloadRef = { bytes: 70_000 };
        }),
      ),
    frame: 1,
    error: DamagedStoreError,
    message: /^decode v4 record at \d+: batch\/event: event\.payloadRef\.digest: expected 64 lower-case hex digits$/,
  },
  {
    name: 'a payload in URL-safe base64',
    // Four characters, three bytes: only the alphabet is wrong (Node would decode it).
    records: () =>
      batchRecords(
        1,
        two,
        editEvent(1, (event) => (event.payload = Buffer.from([0xfb, 0xef, 0xbe]).toString('base64url'))),
      ),
    frame: 1,
    error: DamagedStoreError,
    message: /^decode v4 record at \d+: batch\/event: event\.payload: illegal base64 data$/,
  },
  {
    name: 'a payload without its padding',
    records: () =>
      batchRecords(
        1,
        two,
        editEvent(1, (event) => (event.payload = (event.payload as string).replace(/=+$/, ''))),
      ),
    frame: 1,
    error: DamagedStoreError,
    message: /illegal base64 data$/,
  },
];

describe('the batch reader refuses each broken rule alone, naming where', () => {
  it.each(refusals)('$name', async (refusal) => {
    const records = refusal.records();
    const error = await read(records).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(refusal.error);
    if (refusal.error === DamagedStoreError) expect(error).not.toBeInstanceOf(UnsupportedVersionError);
    expect((error as Error).message).toMatch(refusal.message);
    expect((error as DamagedStoreError).data).toMatchObject({
      file: 'log',
      offset: offsetOf(records, refusal.frame),
      ...refusal.data,
    });
  });

  it('a lone batch/end names no batch', async () => {
    const error = await read(batchRecords(1, two).slice(3)).catch((thrown: unknown) => thrown);
    expect((error as DamagedStoreError).data).not.toHaveProperty('commitId');
  });

  // A reader of a file keeps a fingerprint of each operation and reads the earlier batch back: it judges alike.
  it.each([
    { from: 'frames in memory', reader: read },
    { from: 'a log file', reader: readFile },
  ])('names the operation that conflicts, at the batch that repeats it ($from)', async ({ reader }) => {
    const first = batchRecords(1, two);
    const between = batchRecords(3, two);
    const second = batchRecords(
      5,
      ['session/title'],
      edit(0, (begin) => (begin.operationId = 'op-1')),
    );
    const error = await reader([...first, ...between, ...second]).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect((error as Error).message).toBe('conflicting operation "op-1"');
    expect((error as DamagedStoreError).data).toMatchObject({
      offset: offsetOf([...first, ...between], first.length + between.length),
      expected: 'hash-1',
      found: 'hash-5',
    });
  });

  it('a log file whose earlier batch is rewritten while it is read, when a later batch repeats its operation', async () => {
    const first = batchRecords(1, two);
    const again = batchRecords(
      3,
      ['session/title'],
      edit(0, (begin) => Object.assign(begin, { operationId: 'op-1', operationHash: 'hash-1' })),
    );
    const dir = await tempDir();
    const log = join(dir, 'events.frames');
    await writeFile(log, Buffer.concat([...first, ...again].map((record) => encodeFrame(recordBytes(record)))));
    const batches = readLogBatches(log);
    expect((await batches.next()).value).toMatchObject({ type: 'batch', batch: { operationId: 'op-1' } });
    // The reader holds the whole small log already; on disk, the first begin record now names another operation.
    const rewritten = encodeFrame(recordBytes({ ...first[0]!, operationId: 'op-9' }));
    const file = await open(log, 'r+');
    await file.write(rewritten, 0, rewritten.length, 0);
    await file.close();
    const error = await batches.next().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect((error as Error).message).toBe('v4 batch at 0 changed while the log was read');
    expect((error as DamagedStoreError).data).toMatchObject({ file: log, offset: 0 });
  });
});

describe('what the batch reader accepts', () => {
  it.each([
    { from: 'frames in memory', reader: read },
    { from: 'a log file', reader: readFile },
  ])('a repeated operation with the same hash (a retried commit), from $from', async ({ reader }) => {
    const first = batchRecords(1, two);
    const again = batchRecords(
      3,
      ['session/title'],
      edit(0, (begin) => Object.assign(begin, { operationId: 'op-1', operationHash: 'hash-1' })),
    );
    const third = batchRecords(
      4,
      two,
      edit(0, (begin) => Object.assign(begin, { operationId: 'op-1', operationHash: 'hash-1' })),
    );
    const items = await reader([...first, ...again, ...third]);
    expect(items.map((item) => item.type === 'batch' && [item.batch.firstSeq, item.batch.operationId])).toEqual([
      [1, 'op-1'],
      [3, 'op-1'],
      [4, 'op-1'],
    ]);
  });

  // The kinds Reasonix 1.38.11 projects without `optional` (its ProjectionKinds, spec §7.1), less
  // session/permission-preset, which the binary refuses unless optional (reasonix-decode-rules.test.ts).
  const KINDS_1_38_11 = [
    'message/complete',
    'message/upsert',
    'message/retract',
    'assistant/attempt',
    'tool/call',
    'tool/start',
    'tool/result',
    'turn/start',
    'turn/end',
    'step/start',
    'step/end',
    'todo/write',
    'interaction/created',
    'interaction/resolved',
    'plan/state',
    'goal/state',
    'session/title',
    'session/config',
    'model/context-replace',
    'history/replace',
    'compaction',
    'runtime/recovery',
    'legacy/import',
    'diagnostic',
  ];

  it("a batch keeps its begin's createdAt (none: empty), and an inline payload's event has no payloadRef", async () => {
    const [kept] = await read(batchRecords(1, two));
    expect(kept?.type === 'batch' && kept.batch.createdAt).toBe('2026-12-01T09:00:00Z');
    expect(kept?.type === 'batch' && kept.batch.events[0]).not.toHaveProperty('payloadRef');
    const [none] = await read(
      batchRecords(
        1,
        two,
        edit(0, (begin) => delete begin.createdAt),
      ),
    );
    expect(none?.type === 'batch' && none.batch.createdAt).toBe('');
  });

  it('every kind Reasonix 1.38.11 knows, each required, in one batch', async () => {
    const [item] = await read(batchRecords(1, KINDS_1_38_11));
    expect(item?.type === 'batch' ? item.batch.events.map((event) => event.kind) : item).toEqual(KINDS_1_38_11);
  });

  it.each([
    'session/permission-preset',
    'submission/accepted',
    'context/replace',
    'message/complete ',
    'Message/Complete',
  ])('not a kind 1.38.11 knows when required: %j', async (kind) => {
    const error = await read(batchRecords(1, ['session/title', kind])).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UnsupportedVersionError);
    expect((error as UnsupportedVersionError).message).toBe(`unknown required event ${JSON.stringify(kind)}`);
    expect((error as UnsupportedVersionError).data).toMatchObject({ sequence: 2, found: kind });
  });

  it('an unknown kind marked optional, a kind it is told it knows, and the required flag as written', async () => {
    const records = batchRecords(1, ['future/a', 'future/b'], (all) => {
      (all[1]!.event as Json).optional = true;
      (all[2]!.event as Json).required = true;
    });
    const [item] = await read(records, { knownKinds: new Set(['future/b']) });
    expect(item?.type).toBe('batch');
    const events = item?.type === 'batch' ? item.batch.events : [];
    expect(events.map((event) => [event.seq, event.kind, event.optional, event.required])).toEqual([
      [1, 'future/a', true, false],
      [2, 'future/b', false, true],
    ]);
  });

  it.each([
    { breaks: 'CR LF', by: '\r\n' },
    { breaks: 'LF alone', by: '\n' },
    { breaks: 'CR alone', by: '\r' },
  ])('base64 broken over lines by $breaks (Go ignores CR and LF), and an empty payload as none', async ({ by }) => {
    const payload = Buffer.from(JSON.stringify({ title: 'x'.repeat(100) }));
    const records = batchRecords(1, two, (all) => {
      (all[1]!.event as Json).payload = payload.toString('base64').replace(/(.{20})/g, `$1${by}`);
      (all[2]!.event as Json).payload = '';
    });
    const [item] = await read(records);
    const events = item?.type === 'batch' ? item.batch.events : [];
    expect(events[0]!.payload).toEqual(payload);
    expect(events[1]).not.toHaveProperty('payload');
  });

  it('from a later sequence when told where to start, with each batch’s offsets and end', async () => {
    const records = [...batchRecords(5, two), ...batchRecords(7, ['session/title'])];
    const items = await read(records, { nextSequence: 5 });
    const batches = items.flatMap((item) => (item.type === 'batch' ? [item.batch] : []));
    expect(batches.map((batch) => [batch.firstSeq, batch.offset, batch.end])).toEqual([
      [5, 0, offsetOf(records, 4)],
      [7, offsetOf(records, 4), offsetOf(records, 7)],
    ]);
    expect(batches[0]!.events.map((event) => event.offset)).toEqual([offsetOf(records, 1), offsetOf(records, 2)]);
    await expect(read(records)).rejects.toThrow(/invalid v4 batch boundary at sequence 1/);
  });

  it('an unfinished batch as a torn tail from its begin, whether its last frame is whole or cut', async () => {
    const records = [...batchRecords(1, two), ...batchRecords(3, two).slice(0, 2)];
    const start = offsetOf(records, 4);
    const whole = await read(records);
    expect(whole.at(-1)).toEqual({
      type: 'torn-tail',
      tail: { offset: start, bytes: offsetOf(records, 6) - start, reason: 'unfinished batch' },
    });
    const cut = await read(records, {}, 3);
    expect(cut.at(-1)).toEqual({
      type: 'torn-tail',
      tail: { offset: start, bytes: offsetOf(records, 6) - 3 - start, reason: 'unfinished batch' },
    });
    expect(cut.filter((item) => item.type === 'batch')).toHaveLength(1);
  });
});

describe('record shapes, as Go decodes them', () => {
  const payloadOf = async (payload: string) => {
    const [item] = await read(
      batchRecords(
        1,
        ['session/title'],
        editEvent(1, (event) => (event.payload = payload)),
      ),
    );
    return item?.type === 'batch' ? item.batch.events[0]!.payload : undefined;
  };
  const refusalOf = (records: Json[]) =>
    read(records).then(
      () => undefined,
      (thrown: unknown) => thrown as DamagedStoreError,
    );

  it.each([
    { text: 'QQ==', bytes: [0x41] },
    { text: 'QUI=', bytes: [0x41, 0x42] },
    { text: 'QUJD', bytes: [0x41, 0x42, 0x43] },
    { text: '+/+/', bytes: [0xfb, 0xff, 0xbf] },
  ])('standard base64 $text is its bytes', async ({ text, bytes }) => {
    expect(await payloadOf(text)).toEqual(Buffer.from(bytes));
  });

  it.each(['-_-_', 'QUJ', 'QU!D', '===='])('%j is not standard padded base64', async (text) => {
    const error = await refusalOf(
      batchRecords(
        1,
        ['session/title'],
        editEvent(1, (event) => (event.payload = text)),
      ),
    );
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect(error!.message).toMatch(/: batch\/event: event\.payload: illegal base64 data$/);
  });

  it.each([
    ...['A'.repeat(64), `${'a'.repeat(64)}0`, `0${'a'.repeat(64)}`].map((digest) => ({
      what: `a payloadRef digest ${digest.slice(0, 3)}…${digest.slice(-3)} of ${digest.length} characters`,
      change: editEvent(1, (event) => {
        delete event.payload;
        event.payloadRef = { digest, bytes: 1 };
      }),
      message: /: batch\/event: event\.payloadRef\.digest: expected 64 lower-case hex digits$/,
    })),
    {
      what: 'a begin time that is not RFC 3339',
      change: edit(0, (begin) => (begin.createdAt = '2026-12-01 09:00')),
      message: /: batch\/begin: createdAt: /,
    },
    {
      what: 'a negative sequence',
      change: editEvent(1, (event) => (event.seq = -1)),
      message: /: batch\/event: event\.seq: /,
    },
  ])('$what is refused as a record of the wrong shape', async ({ change, message }) => {
    const error = await refusalOf(batchRecords(1, ['session/title'], change));
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect(error!.message).toMatch(message);
  });

  it('a time with an offset is a time, on a begin, an event and an end', async () => {
    const records = batchRecords(1, ['session/title'], (all) => {
      for (const record of all) record.createdAt = '2026-12-01T11:00:00.5+02:00';
    });
    records[2]!.createdAt = '2026-12-01T11:00:00-05:00';
    const [item] = await read(records);
    expect(item?.type === 'batch' && item.batch.createdAt).toBe('2026-12-01T11:00:00.5+02:00');
  });
});
