import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTENT_DIR } from '../../../src/codec/content-store.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import {
  appendBatch,
  copySession,
  cutLog,
  editLog,
  endFrames,
  framesOf,
  logOf,
  removePath,
  replaceFrame,
  rewriteRecord,
  type LoggedFrame,
} from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { InspectJsonSchema, runCli } from '../../support/inspect-json-schema.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

const source = fixture('payload-ref');
const middle = (frames: LoggedFrame[]) => frames[Math.floor(frames.length / 2)]!;

interface FaultCase {
  name: string;
  damage(dir: string): Promise<{ offset?: number; file?: string } | void>;
  /** rxstore's verdict and the words of its problem. */
  status: 'ok' | 'torn-tail' | 'damaged' | 'unsupported';
  problem?: RegExp;
  /** What the real Reasonix 1.38.11 prints when it refuses (spec: driving-reasonix-offline.md). */
  reasonix?: RegExp;
}

const flipLastByte = (frame: LoggedFrame) => async (dir: string) => {
  // The last byte of a zstd frame belongs to its content checksum.
  await editLog(dir, (log) => {
    log[frame.offset + frame.bytes - 1]! ^= 0x01;
    return log;
  });
  return { offset: frame.offset };
};

/** The content file of the first payloadRef the log holds (the store also keeps objects no event names). */
const contentObject = async (dir: string, tree: 'objects' | 'indexes') => {
  const withRef = (await framesOf(dir)).find(
    (frame) => (frame.record.event as { payloadRef?: unknown } | undefined)?.payloadRef,
  );
  const { digest } = (withRef!.record.event as { payloadRef: { digest: string } }).payloadRef;
  const shard = join(dir, '..', CONTENT_DIR, tree, digest.slice(0, 2), digest.slice(2, 4));
  return join(shard, tree === 'objects' ? digest : `${digest}.json`);
};

const cases: FaultCase[] = [
  {
    name: 'one byte flipped in a middle frame',
    damage: async (dir) => flipLastByte(middle(await framesOf(dir)))(dir),
    status: 'damaged',
    problem: /decode v4 frame: CRC check failed/,
    reasonix: /damaged session store: decode v4 frame: .*CRC/i,
  },
  {
    name: 'one byte flipped in the last frame',
    damage: async (dir) => flipLastByte((await framesOf(dir)).at(-1)!)(dir),
    status: 'damaged',
    problem: /CRC check failed/,
    reasonix: /damaged session store: decode v4 frame/,
  },
  {
    name: 'frame magic overwritten',
    damage: async (dir) => {
      const frame = middle(await framesOf(dir));
      await editLog(dir, (log) => {
        log.write('XXXX', frame.offset, 'ascii');
        return log;
      });
      return { offset: frame.offset };
    },
    status: 'damaged',
    problem: /invalid v4 frame magic/,
    reasonix: /damaged session store: invalid v4 frame magic/,
  },
  {
    name: 'raw-size field off by one',
    damage: async (dir) => {
      const frame = middle(await framesOf(dir));
      await editLog(dir, (log) => {
        log.writeUInt32BE(log.readUInt32BE(frame.offset + 8) + 1, frame.offset + 8);
        return log;
      });
      return { offset: frame.offset };
    },
    status: 'damaged',
    problem: /v4 frame decoded \d+ bytes, expected \d+/,
    reasonix: /damaged session store: v4 frame decoded \d+ bytes, expected \d+/,
  },
  {
    name: 'last frame truncated',
    damage: async (dir) => cutLog(dir, 5),
    status: 'torn-tail',
  },
  {
    name: 'final batch/end removed',
    damage: async (dir) => replaceFrame(dir, (await endFrames(dir)).at(-1)!, Buffer.alloc(0)),
    status: 'torn-tail',
  },
  {
    name: 'a middle batch/end removed',
    damage: async (dir) => {
      const ends = await endFrames(dir);
      const end = middle(ends);
      await replaceFrame(dir, end, Buffer.alloc(0));
      return { offset: end.offset };
    },
    status: 'damaged',
    problem: /nested v4 batch at \d+/,
    reasonix: /damaged session store: nested v4 batch at \d+/,
  },
  {
    name: 'wrong sha256 in a middle batch/end',
    damage: async (dir) => {
      const end = middle(await endFrames(dir));
      await rewriteRecord(dir, end, { sha256: '0'.repeat(64) });
      return { offset: end.offset };
    },
    status: 'damaged',
    problem: /checksum is 0{64}, expected [0-9a-f]{64}/,
    reasonix: /damaged session store: v4 batch [0-9a-f]+ checksum is/,
  },
  {
    name: 'wrong sha256 in the final batch/end',
    damage: async (dir) => {
      const end = (await endFrames(dir)).at(-1)!;
      await rewriteRecord(dir, end, { sha256: 'f'.repeat(64) });
      return { offset: end.offset };
    },
    status: 'damaged',
    problem: /checksum is f{64}/,
    reasonix: /damaged session store: v4 batch [0-9a-f]+ checksum is/,
  },
  {
    name: 'a batch with an unknown required event kind appended',
    damage: async (dir) => appendBatch(dir, [{ kind: 'future/thing', payload: { x: 1 } }]),
    status: 'unsupported',
    problem: /unknown required event "future\/thing"/,
    reasonix: /unsupported session storage version/,
  },
  {
    name: 'the same kind appended with optional: true',
    damage: async (dir) => appendBatch(dir, [{ kind: 'future/thing', optional: true, payload: { x: 1 } }]),
    status: 'ok',
  },
  {
    name: 'a batch with a sequence gap appended',
    damage: async (dir) => {
      const size = (await framesOf(dir)).reduce((sum, frame) => sum + frame.bytes, 0);
      await appendBatch(dir, [{ kind: 'session/title', payload: { title: 'gap' } }], { skipSequences: 1 });
      return { offset: size };
    },
    status: 'damaged',
    problem: /invalid v4 batch boundary at sequence \d+/,
    reasonix: /damaged session store: invalid v4 batch boundary at sequence \d+/,
  },
  {
    name: 'a message with a key Reasonix does not know appended',
    damage: async (dir) => {
      const size = (await framesOf(dir)).reduce((sum, frame) => sum + frame.bytes, 0);
      await appendBatch(dir, [
        {
          kind: 'message/complete',
          payload: { message: { role: 'user', id: 'rx-extra-key', content: 'hi', host_authored: true } },
        },
      ]);
      return {
        offset: (await framesOf(dir)).find(
          (frame) => frame.offset >= size && frame.record.recordType === 'batch/event',
        )!.offset,
      };
    },
    status: 'damaged',
    problem: /Reasonix 1\.38\.11 would refuse: invalid message\/complete payload at \d+: unknown field "host_authored"/,
    reasonix: /damaged session store: invalid message\/complete payload at \d+: .*unknown field "host_authored"/,
  },
  {
    name: 'a message with an id already in the log appended',
    damage: async (dir) => {
      const read = await readSession(dir);
      const taken = read.projection.transcript[1]!.message.id!;
      const size = (await framesOf(dir)).reduce((sum, frame) => sum + frame.bytes, 0);
      await appendBatch(dir, [
        { kind: 'message/complete', payload: { message: { role: 'user', id: taken, content: 'again' } } },
      ]);
      return {
        offset: (await framesOf(dir)).find(
          (frame) => frame.offset >= size && frame.record.recordType === 'batch/event',
        )!.offset,
      };
    },
    status: 'damaged',
    problem: /would refuse: invalid message\/complete payload at \d+: duplicate stable message id/,
    reasonix: /damaged session store: .*duplicate stable message id/,
  },
  {
    name: "a tool call in OpenAI's nested form appended",
    damage: async (dir) => {
      const size = (await framesOf(dir)).reduce((sum, frame) => sum + frame.bytes, 0);
      await appendBatch(dir, [
        {
          kind: 'message/complete',
          payload: {
            message: {
              role: 'assistant',
              id: 'rx-nested-call',
              content: '',
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
            },
          },
        },
      ]);
      return {
        offset: (await framesOf(dir)).find(
          (frame) => frame.offset >= size && frame.record.recordType === 'batch/event',
        )!.offset,
      };
    },
    status: 'damaged',
    problem: /would refuse: invalid message\/complete payload at \d+: unknown field "type"/,
    reasonix: /damaged session store: invalid message\/complete payload at \d+: .*unknown field "type"/,
  },
  {
    name: 'the content object removed',
    damage: async (dir) => {
      const file = await contentObject(dir, 'objects');
      await rm(file);
      return { file };
    },
    status: 'damaged',
    problem: /read v4 event \S+ payload: content object is missing/,
    reasonix: /damaged session store: read v4 event \S+ payload/,
  },
  {
    name: "the content object's integrity index removed",
    damage: async (dir) => {
      const file = await contentObject(dir, 'indexes');
      await rm(file);
      return { file };
    },
    status: 'damaged',
    problem: /read v4 event \S+ payload: content integrity index is missing/,
    reasonix: /damaged session store: read v4 event \S+ payload/,
  },
  {
    name: 'one bit flipped in a content object',
    damage: async (dir) => {
      const file = await contentObject(dir, 'objects');
      const bytes = await readFile(file);
      bytes[100]! ^= 0x01;
      await rm(file);
      await writeFile(file, bytes);
      return { file };
    },
    status: 'damaged',
    problem: /content object digest is/,
    reasonix: /damaged session store: read v4 event \S+ payload/,
  },
  {
    name: '.content-v1 missing',
    damage: async (dir) => {
      const file = await contentObject(dir, 'objects');
      await removePath(join(dir, '..', CONTENT_DIR));
      return { file };
    },
    status: 'damaged',
    problem: /content object is missing/,
    reasonix: /damaged session store: read v4 event \S+ payload/,
  },
];

describe.skipIf(!reasonixBinary())(reasonixTitle(`fault matrix: rxstore's verdict is Reasonix 1.38.11's`), () => {
  it.concurrent.each(cases)('$name', async (fault) => {
    const dir = await copySession(source.dir);
    const where = (await fault.damage(dir)) ?? {};
    const read = await readSession(dir);
    expect(read.status).toBe(fault.status);
    const errors = read.problems.filter((problem) => problem.severity === 'error');
    if (fault.problem) {
      expect(errors).toHaveLength(1);
      expect(errors[0]!.message).toMatch(fault.problem);
      expect(errors[0]!.data.file).toBe(where.file ?? logOf(dir));
      if (where.offset !== undefined) expect(errors[0]!.data.offset).toBe(where.offset);
    } else {
      expect(errors).toEqual([]);
    }
    if (fault.status === 'torn-tail') expect(read.tornTail).not.toBeNull();
    const refused = fault.status === 'damaged' || fault.status === 'unsupported';

    const json = await runCli(['inspect', dir, '--json']);
    expect(json.code).toBe(refused ? 1 : 0);
    expect(InspectJsonSchema.parse(JSON.parse(json.stdout)).status).toBe(fault.status);
    const human = await runCli(['inspect', dir]);
    expect(human.code).toBe(refused ? 1 : 0);
    const problemLines = human.stdout.split('\n').filter((line) => line.startsWith('error'));
    expect(problemLines).toHaveLength(errors.length);
    for (const line of problemLines) expect(line).toContain(where.file ?? logOf(dir));
    if (where.offset !== undefined) expect(problemLines[0]).toContain(`offset ${where.offset}`);
    if (fault.status === 'torn-tail') expect(human.stdout).toMatch(/^warning +RX_TORN_TAIL .*offset \d+: torn tail/m);

    const resumed = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Are you there?' });
    try {
      const said = `${resumed.stdout}\n${resumed.stderr}`;
      expect(resumed.code, said).toBe(refused ? 1 : 0);
      if (fault.reasonix) expect(said).toMatch(fault.reasonix);
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
  });
});
