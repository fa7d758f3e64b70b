// A record's zstd frame with a zstd skippable frame (RFC 8878 §3.1.2) after or before it, or the record in two
// zstd frames, inside an RX4F frame: Reasonix 1.38.11 opens the session (its decoder takes every frame of the
// body), and so must rxstore, through either zstd backend (node:zlib on Node 22.15 and later, zstd-napi before);
// bytes that start no frame are damage.
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import {
  copySession,
  endFrames,
  replaceFrame,
  rx4fFrame,
  skippableFrame as skippable,
  storedFrame,
  storedZstdFrame,
} from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixVerdict } from '../../support/reasonix/reasonix-verdict.js';
import { reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';

const source = fixture('tool-calls');

const bodies: [string, (raw: Buffer) => Buffer, 'ok' | 'damaged'][] = [
  [
    'the record in two zstd frames',
    (raw) => Buffer.concat([storedZstdFrame(raw.subarray(0, 100)), storedZstdFrame(raw.subarray(100))]),
    'ok',
  ],
  [
    'a skippable frame before the frame',
    (raw) => Buffer.concat([skippable(Buffer.from('garbage!')), storedZstdFrame(raw)]),
    'ok',
  ],
  [
    'two zstd frames holding more than the record',
    (raw) => Buffer.concat([storedZstdFrame(raw), storedZstdFrame(Buffer.from(' '))]),
    'damaged',
  ],
  [
    'bytes that are no frame before the frame',
    (raw) => Buffer.concat([Buffer.from('garbage!'), storedZstdFrame(raw)]),
    'damaged',
  ],
];

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

    it.each(bodies)('%s: rxstore says what Reasonix does', async (_, body, expected) => {
      const dir = await copySession(source.dir);
      const end = (await endFrames(dir)).at(-1)!;
      await replaceFrame(dir, end, rx4fFrame(end.raw.length, body(end.raw)));
      const read = await readSession(dir, { caches: false });
      const reasonix = await reasonixVerdict(dir, source.workspace);
      expect(reasonix.status, reasonix.error).toBe(expected);
      expect(read.status, read.problems.map((problem) => problem.message).join('\n')).toBe(expected);
    });
  },
);
