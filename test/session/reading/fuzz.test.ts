import { cp, mkdir, readdir, rename, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DamagedStoreError } from '../../../src/errors/index.js';
import { FRAME_BUDGET_BYTES, FRAME_MAGIC } from '../../../src/codec/frame.js';
import { readBatches } from '../../../src/codec/read-batches.js';
import { readFrames } from '../../../src/codec/read-frames.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { loadBases } from '../../support/fuzz/fuzz-bases.js';
import { CPU_CLOCK_ONLY, withinCpuTime } from '../../support/cpu-budget.js';
import { checkInput, collectGarbage, LIMITS, retainedBytes } from '../../support/fuzz/fuzz-check.js';
import {
  CATEGORIES,
  fuzzInputs,
  type Category,
  type FuzzInput,
  type FuzzOptions,
} from '../../support/fuzz/fuzz-inputs.js';
import { FuzzTally } from '../../support/fuzz/fuzz-tally.js';
import { FuzzWorkspace } from '../../support/fuzz/fuzz-workspace.js';
import { fixture } from '../../support/fixtures.js';
import { vectorsDir } from '../../support/paths.js';
import { tempDir } from '../../support/temp-dir.js';

/** Fixed, so this file fails the same way everywhere; `npm run fuzz` draws others for as long as it is given. */
const OPTIONS: FuzzOptions = {
  seed: 0x5eed2026,
  depth: 100_000,
  truncationSessionStride: 256,
  sparseBytes: 32 * 1024 * 1024,
};

/** Inputs per category: about 22 s of CPU in all, half of it every cut of both logs. */
const COUNTS: Record<Category, number> = {
  'bit-flip': 150,
  truncation: Infinity,
  splice: 120,
  'random-record': 200,
  'huge-size': 80,
  'zstd-overrun': 40,
  'deep-json': 12,
  'wide-json': 2,
  'proto-keys': 80,
  'bad-utf8': 60,
  'bad-digest': 60,
  symlink: 40,
  'special-file': 6,
};

const BEHAVIOUR: Record<Category, string> = {
  'bit-flip': 'bits flipped anywhere in the store',
  truncation: 'a log cut at every offset is committed batches and a torn tail, never damage',
  splice: 'frames dropped, copied, reordered or taken from another log',
  'random-record': 'valid frames around changed records, most resealed',
  'huge-size': 'headers declaring sizes up to 0xFFFFFFFF are refused on the header alone',
  'zstd-overrun': 'zstd output longer or shorter than declared is refused without allocating it',
  'deep-json': '100 000 levels of nesting in records, payloads and the manifest',
  'wide-json': 'arrays and objects of over 125 000 items in one record',
  'proto-keys': '__proto__, constructor and friends as keys, kinds, roles and ids',
  'bad-utf8': 'bytes that are not UTF-8 inside records, payloads and the manifest',
  'bad-digest': 'payloadRefs with ../, upper-case or wrong-length digests, and wrong sizes',
  symlink: 'symlinked session directories and content objects',
  'special-file': 'FIFOs, /dev/zero, sparse files and directories where store files belong',
};

const bases = loadBases();
const tally = new FuzzTally();
let workspace: FuzzWorkspace;
let baseline: number;

beforeAll(async () => {
  workspace = new FuzzWorkspace(await tempDir('rxstore-fuzz-'));
  collectGarbage();
  baseline = retainedBytes();
});

afterAll(() => {
  console.log(`fuzz, seed ${OPTIONS.seed}:\n${tally.format()}`);
});

describe('declared sizes and links are checked before they are trusted', () => {
  const bogus = [
    [0xffffffff, 100],
    [100, 0xffffffff],
    [0xffffffff, 0xffffffff],
    [FRAME_BUDGET_BYTES + 1, 100],
  ] as const;

  it.each(bogus)(
    'refuses a header declaring C=%i R=%i on the header alone, allocating nothing that size',
    async (compressed, raw) => {
      const header = Buffer.concat([FRAME_MAGIC, uint32(compressed), uint32(raw)]);
      const declared = Math.min(...[compressed, raw].filter((size) => size > FRAME_BUDGET_BYTES));
      // After the header the source stays silent: a reader waiting for the declared bytes would never return.
      const silence = silentAfter(header);
      const { result, sizes } = await watchingAllocations(() =>
        firstError(readBatches(readFrames(silence.source, { file: 'events.frames' })), silence.askedForMore),
      );
      expect(result).toBeInstanceOf(DamagedStoreError);
      expect(result).toMatchObject({ code: 'RX_DAMAGED_STORE', data: { file: 'events.frames', offset: 0 } });
      expect(Math.max(0, ...sizes)).toBeLessThan(declared);

      const dir = join(await tempDir(), 'demo-session-0001');
      await cp(join(vectorsDir, 'demo-session-0001'), dir, { recursive: true });
      await writeFile(join(dir, 'events.frames'), header);
      const session = await watchingAllocations(() => readSession(dir));
      expect(session.result.problems).toContainEqual(
        expect.objectContaining({ code: 'RX_DAMAGED_STORE', data: expect.objectContaining({ offset: 0 }) }),
      );
      expect(Math.max(0, ...session.sizes)).toBeLessThan(declared);
    },
  );

  it('refuses a symlinked content object as corrupt (RX_CORRUPT_CONTENT), even one holding the right bytes', async () => {
    const source = fixture('payload-ref').dir;
    const store = join(await tempDir(), 'sessions-v4');
    await cp(dirname(source), store, { recursive: true });
    for (const object of await filesUnder(join(store, '.content-v1', 'objects'))) {
      await rename(object, `${object}.real`);
      await symlink(`${basename(object)}.real`, object);
    }
    const read = await readSession(join(store, basename(source)));
    expect(read.status).toBe('damaged');
    expect(read.problems).toContainEqual(
      expect.objectContaining({ code: 'RX_CORRUPT_CONTENT', message: expect.stringContaining('not a regular file') }),
    );
  });

  it('does not say Reasonix would open a session whose directory is a symlink (docs/format.md §2)', async () => {
    const root = await tempDir();
    const real = join(root, 'elsewhere', 'demo-session-0001');
    const link = join(root, 'sessions-v4', 'demo-session-0001');
    await cp(join(vectorsDir, 'demo-session-0001'), real, { recursive: true });
    await mkdir(dirname(link));
    await symlink(real, link);
    const read = await readSession(link);
    expect(['damaged', 'unsupported']).toContain(read.status);
    expect(read.problems.some((problem) => problem.severity === 'error')).toBe(true);
  });
});

describe('hostile stores give coded errors only, in bounded time and memory', () => {
  for (const category of CATEGORIES) {
    // Seconds of CPU per category: held to the test budget in CPU time, which a busy machine does not stretch.
    it(
      `${category}: ${BEHAVIOUR[category]}`,
      async () => {
        const found: string[] = [];
        await withinCpuTime(async () => {
          for (const input of take(fuzzInputs(category, bases, OPTIONS), COUNTS[category])) {
            const result = await checkInput(input, workspace);
            tally.add(input, result);
            for (const finding of result.findings)
              found.push(
                `#${input.index} ${input.recipe.slice(0, 200)}\n${finding.kind} in ${finding.layer}: ${finding.detail}`,
              );
          }
        });
        expect(found.length > 5 ? [...found.slice(0, 5), `… and ${found.length - 5} more`] : found).toEqual([]);
      },
      CPU_CLOCK_ONLY,
    );
  }

  it(`gives back what it used: heap and buffers end within ${LIMITS.runGrowthBytes / 2 ** 20} MiB of where they began`, () => {
    collectGarbage();
    expect(retainedBytes() - baseline).toBeLessThan(LIMITS.runGrowthBytes);
  });
});

function* take(inputs: Iterable<FuzzInput>, count: number): Iterable<FuzzInput> {
  if (count <= 0) return;
  let taken = 0;
  for (const input of inputs) {
    yield input;
    taken += 1;
    if (taken === count) return;
  }
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

/** What `read` returns, with the size of every Buffer allocated meanwhile. */
async function watchingAllocations<T>(read: () => Promise<T>): Promise<{ result: T; sizes: number[] }> {
  const spies = [vi.spyOn(Buffer, 'alloc'), vi.spyOn(Buffer, 'allocUnsafe'), vi.spyOn(Buffer, 'allocUnsafeSlow')];
  try {
    const result = await read();
    return { result, sizes: spies.flatMap((spy) => spy.mock.calls.map(([size]) => size)) };
  } finally {
    spies.forEach((spy) => spy.mockRestore());
  }
}

/**
 * A source that gives `bytes` and then nothing, ever; `askedForMore` settles when a reader asks it for
 * more, and then only after every turn of work already queued has run (a reader that reads ahead but
 * would refuse on what it has does so within them: it waits for no I/O).
 */
function silentAfter(bytes: Buffer): { source: AsyncIterable<Buffer>; askedForMore: Promise<string> } {
  let asked!: () => void;
  const askedForMore = new Promise<string>(
    (resolve) => (asked = () => setImmediate(resolve, 'still waiting for input after the header')),
  );
  async function* source() {
    yield bytes;
    asked();
    await new Promise(() => undefined);
  }
  return { source: source(), askedForMore };
}

/** The error reading `items` ends with; a reader that is still waiting for input when `waiting` settles has none, and says so. */
async function firstError(items: AsyncIterable<unknown>, waiting: Promise<string>): Promise<unknown> {
  const reading = (async () => {
    for await (const _ of items);
    return 'finished without an error';
  })().catch((error: unknown) => error);
  return Promise.race([reading, waiting]);
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}
