// A record's zstd frame that declares a window larger than Reasonix 1.38.11's decoder takes is refused by it
// ("decode v4 frame: window size exceeded") whatever its content needs; up to 8 MiB it opens. rxstore says
// what Reasonix does, naming the frame.
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, endFrames, replaceFrame, windowedFrame } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixVerdict } from '../../support/reasonix/reasonix-verdict.js';
import { reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';

const source = fixture('tool-calls');

const cases: [string, number, 'ok' | 'damaged'][] = [
  ['a window of 1 MiB', 0x50, 'ok'],
  ['a window of 8 MiB', 0x68, 'ok'],
  ['a window of 8 MiB and an eighth', 0x69, 'damaged'],
  ['a window of 16 MiB', 0x70, 'damaged'],
];

describe.skipIf(!reasonixBinary())(
  reasonixTitle(`the window a record's zstd frame declares, judged by Reasonix 1.38.11`),
  () => {
    it.concurrent.each(cases)('%s: rxstore says what Reasonix does', async (_, descriptor, expected) => {
      const dir = await copySession(source.dir);
      const end = (await endFrames(dir)).at(-1)!;
      await replaceFrame(dir, end, windowedFrame(end.raw, descriptor));
      const read = await readSession(dir, { caches: false });
      const reasonix = await reasonixVerdict(dir, source.workspace);
      expect(reasonix.status, reasonix.error).toBe(expected);
      expect(read.status, read.problems.map((problem) => problem.message).join('\n')).toBe(expected);
      if (expected === 'damaged') {
        expect(reasonix.error).toContain('window size exceeded');
        expect(read.refusal).toMatchObject({ code: 'RX_DAMAGED_STORE', data: { offset: end.offset } });
        expect(read.refusal!.message).toContain('decode v4 frame: window size exceeded');
      }
    });
  },
);
