import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { FrameParser } from '../../../src/codec/frame-parser.js';
import { FIXTURE_NAMES, fixture } from '../fixtures.js';
import { vectorsDir } from '../paths.js';

/** What stands at one path of a fuzz store: the hostile inputs need more than regular files. */
export type Entry =
  | { kind: 'file'; bytes: Buffer }
  | { kind: 'symlink'; target: string }
  | { kind: 'fifo' }
  | { kind: 'dir' }
  /** A regular file of this many zero bytes that takes no disk space. */
  | { kind: 'sparse'; bytes: number };

/** A fuzz store: paths relative to the fuzz root, shaped `sessions-v4/<id>/…` as in a real state root. */
export type Entries = Map<string, Entry>;

export const STORE = 'sessions-v4';
export const sessionPathOf = (id: string) => `${STORE}/${id}`;
export const logPathOf = (id: string) => `${STORE}/${id}/events.frames`;

/** One committed batch of a base log: its frames `first..last` and the byte offset after it. */
export interface BaseBatch {
  first: number;
  last: number;
  end: number;
}

/** A valid session the generators start from: the spec vector or a fixture written by Reasonix. */
export interface BaseSession {
  name: string;
  id: string;
  entries: Entries;
  log: Buffer;
  /** Each frame whole (header and body), with its offset and its record's raw JSON bytes. */
  frames: { offset: number; bytes: Buffer; record: Buffer }[];
  batches: BaseBatch[];
  /** The sequence a batch appended to the log must start at. */
  nextSeq: number;
}

/** The spec vector (§16.1) and every committed fixture, read into memory once. */
export function loadBases(): BaseSession[] {
  return [
    loadBase('vector', join(vectorsDir, 'demo-session-0001')),
    ...FIXTURE_NAMES.map((name) => loadBase(name, fixture(name).dir)),
  ];
}

function loadBase(name: string, dir: string): BaseSession {
  const id = basename(dir);
  const entries: Entries = new Map();
  for (const file of readdirSync(dir, { withFileTypes: true })) {
    if (file.isFile())
      entries.set(`${sessionPathOf(id)}/${file.name}`, { kind: 'file', bytes: readFileSync(join(dir, file.name)) });
  }
  const content = join(dir, '..', '.content-v1');
  for (const path of regularFiles(content)) {
    // Publish locks are Reasonix's transient files, not content.
    if (!path.endsWith('.lock'))
      entries.set(`${STORE}/.content-v1/${relative(content, path)}`, { kind: 'file', bytes: readFileSync(path) });
  }
  const log = readFileSync(join(dir, 'events.frames'));
  const frames = [...new FrameParser(undefined).push(log)].map((frame) => ({
    offset: frame.offset,
    bytes: log.subarray(frame.offset, frame.offset + frame.frameBytes),
    record: frame.raw,
  }));
  const batches: BaseBatch[] = [];
  let first = 0;
  let nextSeq = 1;
  frames.forEach((frame, index) => {
    const record = JSON.parse(frame.record.toString('utf8')) as {
      recordType: string;
      firstSeq: number;
      eventCount: number;
    };
    if (record.recordType === 'batch/begin') first = index;
    if (record.recordType === 'batch/end') {
      batches.push({ first, last: index, end: frame.offset + frame.bytes.length });
      nextSeq = record.firstSeq + record.eventCount;
    }
  });
  return { name, id, entries, log, frames, batches, nextSeq };
}

function regularFiles(dir: string): string[] {
  let names;
  try {
    names = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return names.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return regularFiles(path);
    return entry.isFile() ? [path] : [];
  });
}
