// Record-level faults of a v4 log (spec §4, §5), one named case each: well-formed frames that say
// something a writer never says, with rxstore's verdict and the real Reasonix 1.38.11's.
import { expect } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import {
  appendBatch,
  endFrames,
  framesOf,
  insertFrame,
  insertRawFrame,
  logOf,
  rewriteRecord,
  type LoggedFrame,
} from './faults.js';
import { fixture } from '../fixtures.js';
import { InspectJsonSchema, runCli } from '../inspect-json-schema.js';

export const source = fixture('tool-calls');

export interface CodecFault {
  name: string;
  /** Damages the copy; returns the log offset the problem must name. */
  damage(dir: string): Promise<number>;
  status: 'damaged' | 'unsupported';
  code: 'RX_DAMAGED_STORE' | 'RX_UNSUPPORTED_VERSION';
  problem: RegExp;
  /** What the real Reasonix 1.38.11 printed when it refused the same copy (exit code 1). */
  reasonix: RegExp;
  /** Reasonix's line is `error: damaged session store: ` and rxstore's message, word for word. */
  sameWords?: boolean;
}

/** The frames of the middle committed batch: its begin, events and end. */
async function middleBatch(dir: string): Promise<{ begin: LoggedFrame; events: LoggedFrame[]; end: LoggedFrame }> {
  const frames = await framesOf(dir);
  const ends = await endFrames(dir);
  const end = ends[Math.floor(ends.length / 2)]!;
  const endIndex = frames.findIndex((frame) => frame.offset === end.offset);
  const beginIndex = frames.slice(0, endIndex).findLastIndex((frame) => frame.record.recordType === 'batch/begin');
  return { begin: frames[beginIndex]!, events: frames.slice(beginIndex + 1, endIndex), end };
}

/**
 * Reasonix 1.38.11 gives one message for every unsupported v4 record: the v4 read fails as unsupported,
 * it then tries the session as an older preview store, and that attempt refuses the manifest's v4 codec.
 */
const UNSUPPORTED_BY_REASONIX =
  /^error: unsupported session storage version: unsupported preview codec "reasonix\.session\.linear\/v4"$/m;

const logSize = async (dir: string) => (await framesOf(dir)).reduce((sum, frame) => sum + frame.bytes, 0);

export const codecFaults: CodecFault[] = [
  {
    name: 'schemaVersion 5 in a middle batch/event',
    damage: async (dir) => {
      const { events } = await middleBatch(dir);
      await rewriteRecord(dir, events[0]!, { schemaVersion: 5 });
      return events[0]!.offset;
    },
    status: 'unsupported',
    code: 'RX_UNSUPPORTED_VERSION',
    problem: /^v4 physical record at \d+$/,
    reasonix: UNSUPPORTED_BY_REASONIX,
  },
  {
    name: 'another codec in a middle batch/begin',
    damage: async (dir) => {
      const { begin } = await middleBatch(dir);
      await rewriteRecord(dir, begin, { codec: 'reasonix.session.linear/v5' });
      return begin.offset;
    },
    status: 'unsupported',
    code: 'RX_UNSUPPORTED_VERSION',
    problem: /^v4 physical record at \d+$/,
    reasonix: UNSUPPORTED_BY_REASONIX,
  },
  {
    name: 'a batch/event between two batches',
    damage: async (dir) => {
      const { events, end } = await middleBatch(dir);
      const at = end.offset + end.bytes;
      await insertFrame(dir, at, events[0]!.record);
      return at;
    },
    status: 'damaged',
    code: 'RX_DAMAGED_STORE',
    problem: /^v4 event outside batch at \d+$/,
    sameWords: true,
    reasonix: /damaged session store: v4 event outside batch at \d+/,
  },
  {
    name: 'a batch/event at the wrong sequence',
    damage: async (dir) => {
      const { events } = await middleBatch(dir);
      const event = events[0]!.record.event as { seq: number };
      await rewriteRecord(dir, events[0]!, { event: { ...event, seq: event.seq + 1 } });
      return events[0]!.offset;
    },
    status: 'damaged',
    code: 'RX_DAMAGED_STORE',
    problem: /^invalid v4 event at sequence \d+$/,
    sameWords: true,
    reasonix: /damaged session store: invalid v4 event at sequence \d+/,
  },
  {
    name: "a batch/end with another batch's commitId",
    damage: async (dir) => {
      const { end } = await middleBatch(dir);
      await rewriteRecord(dir, end, { commitId: 'f'.repeat(32) });
      return end.offset;
    },
    status: 'damaged',
    code: 'RX_DAMAGED_STORE',
    problem: /^invalid v4 batch end at \d+$/,
    sameWords: true,
    reasonix: /damaged session store: invalid v4 batch end at \d+/,
  },
  {
    name: 'a batch/end whose eventCount is not its begin’s',
    damage: async (dir) => {
      const { end } = await middleBatch(dir);
      await rewriteRecord(dir, end, { eventCount: (end.record.eventCount as number) + 1 });
      return end.offset;
    },
    status: 'damaged',
    code: 'RX_DAMAGED_STORE',
    problem: /^invalid v4 batch end at \d+$/,
    sameWords: true,
    reasonix: /damaged session store: invalid v4 batch end at \d+/,
  },
  {
    name: 'a batch reusing an operationId with different events',
    damage: async (dir) => {
      const first = (await framesOf(dir)).find((frame) => frame.record.recordType === 'batch/begin')!;
      const at = await logSize(dir);
      await appendBatch(dir, [{ kind: 'session/title', payload: { title: 'conflict' } }], {
        operationId: first.record.operationId as string,
      });
      return at;
    },
    status: 'damaged',
    code: 'RX_DAMAGED_STORE',
    problem: /^conflicting operation "[^"]+"$/,
    sameWords: true,
    reasonix: /damaged session store: conflicting operation/,
  },
  {
    name: 'an unknown record type between two batches',
    damage: async (dir) => {
      const { end } = await middleBatch(dir);
      const at = end.offset + end.bytes;
      await insertFrame(dir, at, { schemaVersion: 4, codec: 'reasonix.session.linear/v4', recordType: 'batch/marker' });
      return at;
    },
    status: 'unsupported',
    code: 'RX_UNSUPPORTED_VERSION',
    problem: /^unknown v4 physical record "batch\/marker"$/,
    reasonix: UNSUPPORTED_BY_REASONIX,
  },
  {
    name: 'a frame whose record is not JSON',
    damage: async (dir) => {
      const { end } = await middleBatch(dir);
      const at = end.offset + end.bytes;
      await insertRawFrame(dir, at, Buffer.from('{"schemaVersion":4,'));
      return at;
    },
    status: 'damaged',
    code: 'RX_DAMAGED_STORE',
    problem: /^decode v4 record at \d+: /,
    reasonix: /damaged session store: decode v4 record at \d+/,
  },
  {
    name: 'a frame whose record is a JSON array',
    damage: async (dir) => {
      const { end } = await middleBatch(dir);
      const at = end.offset + end.bytes;
      await insertRawFrame(dir, at, Buffer.from('[4]'));
      return at;
    },
    status: 'damaged',
    code: 'RX_DAMAGED_STORE',
    problem: /^decode v4 record at \d+: not a JSON object$/,
    reasonix: /damaged session store: decode v4 record at \d+/,
  },
];

/** rxstore's verdict, asserted wherever the tests run, with or without the Reasonix binary. */
export async function expectRxstoreVerdict(dir: string, fault: CodecFault, offset: number): Promise<string> {
  const read = await readSession(dir);
  expect(read.status).toBe(fault.status);
  const errors = read.problems.filter((problem) => problem.severity === 'error');
  expect(errors).toHaveLength(1);
  expect(errors[0]!.code).toBe(fault.code);
  expect(errors[0]!.message).toMatch(fault.problem);
  expect(errors[0]!.data.file).toBe(logOf(dir));
  expect(errors[0]!.data.offset).toBe(offset);

  const json = await runCli(['inspect', dir, '--json']);
  expect(json.code).toBe(1);
  expect(InspectJsonSchema.parse(JSON.parse(json.stdout)).status).toBe(fault.status);
  const human = await runCli(['inspect', dir]);
  expect(human.code).toBe(1);
  const problemLines = human.stdout.split('\n').filter((line) => line.startsWith('error'));
  expect(problemLines).toHaveLength(1);
  expect(problemLines[0]).toContain(`${logOf(dir)} at offset ${offset}`);
  expect(problemLines[0]).toContain(fault.code);
  return errors[0]!.message;
}
