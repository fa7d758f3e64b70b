import { compress as compressWithoutSize } from 'zstd-napi';
import { FRAME_BUDGET_BYTES, FRAME_HEADER_BYTES, FRAME_MAGIC } from '../../../src/codec/frame.js';
import { zstd } from '../../../src/codec/zstd/zstd.js';
import { logPathOf, type BaseSession } from './fuzz-bases.js';
import {
  committedBefore,
  DAMAGED,
  fileEntry,
  frameOffset,
  replaced,
  withLog,
  type Draft,
  type Random,
} from './fuzz-drafts.js';
import type { Expectation, FuzzOptions } from './fuzz-inputs.js';

/** Hostile bytes of a log: flipped bits, every cut, spliced frames, bogus declared sizes, zstd that overruns. */

export function* bitFlips(rand: Random, bases: readonly BaseSession[]): Iterable<Draft> {
  for (;;) {
    const base = rand.pick(bases);
    // Mostly the log; otherwise the manifest, a cache file or a content object.
    const others = [...base.entries].flatMap(([path, entry]) =>
      path !== logPathOf(base.id) && entry.kind === 'file' && entry.bytes.length > 0
        ? [[path, entry.bytes] as const]
        : [],
    );
    const [path, original] =
      rand.next() < 0.75 || others.length === 0 ? ([logPathOf(base.id), base.log] as const) : rand.pick(others);
    const bytes = Buffer.from(original);
    const flips = Array.from({ length: 1 + rand.int(8) }, () => [rand.int(bytes.length), rand.int(8)] as const);
    for (const [at, bit] of flips) bytes[at]! ^= 1 << bit;
    const recipe = `flip ${path.split('/').pop()} bits ${flips.map(([at, bit]) => `${at}.${bit}`).join(' ')}`;
    yield path === logPathOf(base.id)
      ? withLog(base, recipe, bytes)
      : { ...withLog(base, recipe, base.log), entries: replaced(base.entries, path, fileEntry(bytes)) };
  }
}

/** Every cut of the two small logs: a torn write is never damage, only an invisible tail (docs/format.md §3.4). */
export function* truncations(_rand: Random, bases: readonly BaseSession[], options: FuzzOptions): Iterable<Draft> {
  for (const base of bases.filter((candidate) => candidate.name === 'vector' || candidate.name === 'plain-chat')) {
    const edges = new Set(base.frames.flatMap((frame) => [frame.offset - 1, frame.offset, frame.offset + 1]));
    for (let cut = 0; cut < base.log.length; cut += 1) {
      yield {
        ...withLog(base, `cut at ${cut} of ${base.log.length}`, base.log.subarray(0, cut), {
          committedBatches: committedBefore(base, cut),
          sessionOpens: true,
        }),
        codecOnly: cut % options.truncationSessionStride !== 0 && !edges.has(cut),
      };
    }
  }
}

const SPLICES = [
  'drop',
  'duplicate',
  'swap',
  'move',
  'reverse',
  'foreign-insert',
  'foreign-replace',
  'byte-paste',
] as const;

export function* splices(rand: Random, bases: readonly BaseSession[]): Iterable<Draft> {
  for (;;) {
    const base = rand.pick(bases);
    let frames = base.frames.map((frame) => frame.bytes);
    const notes: string[] = [];
    for (let count = 1 + rand.int(3); count > 0; count -= 1) {
      const op = frames.length === 0 ? 'foreign-insert' : rand.pick(SPLICES);
      const i = rand.int(frames.length);
      const j = rand.int(frames.length);
      const donor = rand.pick(bases);
      const foreign = rand.int(donor.frames.length);
      const foreignBytes = donor.frames[foreign]!.bytes;
      switch (op) {
        case 'drop':
          frames.splice(i, 1);
          notes.push(`drop frame ${i}`);
          break;
        case 'duplicate':
          frames.splice(j, 0, frames[i]!);
          notes.push(`copy frame ${i} before ${j}`);
          break;
        case 'swap':
          [frames[i], frames[j]] = [frames[j]!, frames[i]!];
          notes.push(`swap frames ${i} and ${j}`);
          break;
        case 'move': {
          const [frame] = frames.splice(i, 1);
          frames.splice(j, 0, frame!);
          notes.push(`move frame ${i} to ${j}`);
          break;
        }
        case 'reverse': {
          const [from, to] = [Math.min(i, j), Math.max(i, j)];
          frames = [...frames.slice(0, from), ...frames.slice(from, to + 1).reverse(), ...frames.slice(to + 1)];
          notes.push(`reverse frames ${from}..${to}`);
          break;
        }
        case 'foreign-insert':
          frames.splice(j, 0, foreignBytes);
          notes.push(`insert ${donor.name} frame ${foreign} at ${j}`);
          break;
        case 'foreign-replace':
          frames[i] = foreignBytes;
          notes.push(`replace frame ${i} with ${donor.name} frame ${foreign}`);
          break;
        case 'byte-paste': {
          // Frame boundaries no longer line up: a slice of another log lands mid-frame.
          const log = Buffer.concat(frames);
          const from = rand.int(donor.log.length);
          const piece = donor.log.subarray(from, from + 1 + rand.int(256));
          const at = rand.int(log.length + 1);
          frames = [log.subarray(0, at), piece, log.subarray(at)];
          notes.push(`paste ${piece.length} bytes of ${donor.name} from ${from} at byte ${at}`);
          break;
        }
      }
    }
    yield withLog(base, notes.join(', '), Buffer.concat(frames));
  }
}

const SIZES = [
  0,
  1,
  FRAME_BUDGET_BYTES,
  FRAME_BUDGET_BYTES + 1,
  0x00ffffff,
  0x7fffffff,
  0x80000000,
  0xfffffffe,
  0xffffffff,
];

/** Frame headers whose declared sizes are out of budget must be refused on the header alone (docs/format.md §3.3). */
export function* hugeSizes(rand: Random, bases: readonly BaseSession[]): Iterable<Draft> {
  for (;;) {
    const base = rand.pick(bases);
    const k = rand.int(base.frames.length + 1);
    const offset = frameOffset(base, k);
    const size = () => (rand.next() < 0.2 ? rand.int(2 ** 32) : rand.pick(SIZES));
    const [compressed, raw] = [size(), size()];
    const header = frameHeader(compressed, raw);
    const tail = rand.pick(['nothing', 'the rest of the log', 'the frame body', '64 KiB of zeros'] as const);
    const after = {
      nothing: Buffer.alloc(0),
      'the rest of the log': base.log.subarray(offset),
      'the frame body': base.frames[k]?.bytes.subarray(FRAME_HEADER_BYTES) ?? Buffer.alloc(0),
      '64 KiB of zeros': Buffer.alloc(65536),
    }[tail];
    const log = Buffer.concat([base.log.subarray(0, offset), header, after]);
    const bogus = [compressed, raw].filter((value) => value < 1 || value > FRAME_BUDGET_BYTES);
    const oversize = bogus.filter((value) => value > FRAME_BUDGET_BYTES);
    const expect: Expectation | undefined =
      bogus.length > 0
        ? {
            codecError: { code: DAMAGED, offset },
            sessionOpens: false,
            ...(oversize.length > 0 ? { allocationBelow: Math.min(...oversize) } : {}),
          }
        : tail === 'nothing'
          ? { committedBatches: committedBefore(base, offset) }
          : undefined;
    yield withLog(base, `header C=${hex(compressed)} R=${hex(raw)} at ${offset}, then ${tail}`, log, expect);
  }
}

const ZSTD_VARIANTS = [
  'declares less',
  'declares more',
  'no content size, declares less',
  'two zstd frames',
  'bomb',
] as const;

let bombs: Map<number, Buffer> | undefined;

/** zstd output other than the declared raw size is damage, and output past it is never allocated (docs/format.md §3.3). */
export function* zstdOverruns(rand: Random, bases: readonly BaseSession[]): Iterable<Draft> {
  // Compressed once: 8 MiB (the budget) and 64 MiB of spaces, a few hundred bytes each.
  bombs ??= new Map([FRAME_BUDGET_BYTES, 64 << 20].map((bytes) => [bytes, zstd.compress(Buffer.alloc(bytes, 0x20))]));
  for (;;) {
    const base = rand.pick(bases);
    const k = rand.int(base.frames.length + 1);
    const offset = frameOffset(base, k);
    const content = (base.frames[k] ?? base.frames[0]!).record;
    const variant = rand.pick(ZSTD_VARIANTS);
    let body: Buffer;
    let declared: number;
    let allocationBelow: number | undefined;
    switch (variant) {
      case 'declares less':
        body = zstd.compress(content);
        declared = 1 + rand.int(content.length - 1);
        break;
      case 'declares more':
        body = zstd.compress(content);
        declared = content.length + 1 + rand.int(1000);
        break;
      case 'no content size, declares less':
        body = compressWithoutSize(content, { contentSizeFlag: false });
        declared = 1 + rand.int(content.length - 1);
        break;
      case 'two zstd frames':
        body = Buffer.concat([zstd.compress(content), zstd.compress(content)]);
        declared = content.length;
        break;
      case 'bomb': {
        const [bytes, frame] = rand.pick([...bombs]);
        body = frame;
        declared = rand.next() < 0.5 ? 1 + rand.int(4096) : Math.min(bytes - 1, FRAME_BUDGET_BYTES);
        // The output past R is never allocated (zstd-napi's backend keeps one spare byte to see it).
        if (declared + 1 < bytes) allocationBelow = bytes;
        break;
      }
    }
    const rest = rand.next() < 0.5 ? base.log.subarray(offset) : Buffer.alloc(0);
    const log = Buffer.concat([base.log.subarray(0, offset), frameHeader(body.length, declared), body, rest]);
    yield withLog(base, `zstd frame (${variant}, ${body.length} bytes) declaring R=${declared} at ${offset}`, log, {
      codecError: { code: DAMAGED, offset },
      sessionOpens: false,
      ...(allocationBelow !== undefined ? { allocationBelow } : {}),
    });
  }
}

function frameHeader(compressed: number, raw: number): Buffer {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  FRAME_MAGIC.copy(header, 0);
  header.writeUInt32BE(compressed, 4);
  header.writeUInt32BE(raw, 8);
  return header;
}

const hex = (value: number) => `0x${value.toString(16)}`;
