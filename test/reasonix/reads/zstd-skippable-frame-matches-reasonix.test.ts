// A record's zstd frame followed by a zstd skippable frame (RFC 8878 §3.1.2) inside an RX4F frame: Reasonix
// 1.38.11 opens the session (its decoder passes over skippable frames), and so must rxstore, through either
// zstd backend (node:zlib on Node 22.15 and later, zstd-napi before); other bytes after the frame are damage.
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import {
  copySession,
  endFrames,
  replaceFrame,
  skippableFrame as skippable,
  storedFrame,
} from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixVerdict } from '../../support/reasonix/reasonix-verdict.js';
import { reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';

const source = fixture('tool-calls');

const cases: [string, Buffer, 'ok' | 'damaged'][] = [
  ['one skippable frame', skippable(Buffer.from('garbage!')), 'ok'],
  [
    'two skippable frames, one empty',
    Buffer.concat([skippable(Buffer.alloc(0)), skippable(Buffer.from('RX4F'))]),
    'ok',
  ],
  ['bytes that are no frame', Buffer.from('garbage!'), 'damaged'],
];

describe.skipIf(!reasonixBinary())(
  reasonixTitle(`a zstd skippable frame after a record's frame, judged by Reasonix 1.38.11`),
  () => {
    it.each(cases)('%s: rxstore says what Reasonix does', async (_, trailer, expected) => {
      const dir = await copySession(source.dir);
      const end = (await endFrames(dir)).at(-1)!;
      await replaceFrame(dir, end, storedFrame(end.raw, trailer));
      const read = await readSession(dir, { caches: false });
      const reasonix = await reasonixVerdict(dir, source.workspace);
      expect(reasonix.status, reasonix.error).toBe(expected);
      expect(read.status, read.problems.map((problem) => problem.message).join('\n')).toBe(expected);
    });
  },
);
