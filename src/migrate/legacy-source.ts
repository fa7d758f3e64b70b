import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { NotRegularFileError, TooLargeError } from '../errors/index.js';
import { constants as bufferConstants } from 'node:buffer';
import { basename } from 'node:path';
import { V4_CODEC } from '../codec/records.js';
import { transcriptSidecars } from '../store/jsonl/jsonl-sidecars.js';

/** A file frozen for migration: its bytes as read once, so the copy and its digest agree. */
export interface FrozenArtifact {
  path: string;
  bytes: Buffer;
}

/** A transcript and its sidecars, frozen, with the digest and the target id Reasonix derives (docs/format.md §10.1). */
export interface LegacySource {
  path: string;
  artifacts: FrozenArtifact[];
  size: number;
  sha256: string;
  /** The DAG head of a schema-2 session; empty for the plain transcripts rxstore migrates. */
  headId: string;
  targetId: string;
}

const NUL = Buffer.from([0]);
const MAX_STRING_LENGTH = bufferConstants.MAX_STRING_LENGTH;

/**
 * Reads the transcript and every sidecar that exists, in full path order, as Reasonix freezes them
 * (docs/format.md §10.1 step 1). A sidecar name taken by a directory is passed over, as Reasonix does; any
 * other file that is not a regular file is refused. Each is opened without blocking and checked
 * before a byte is read, so a FIFO named like a transcript fails at once instead of hanging.
 */
export async function freezeLegacySource(transcriptPath: string): Promise<LegacySource> {
  const paths = [transcriptPath, ...transcriptSidecars(transcriptPath)].sort();
  const artifacts: FrozenArtifact[] = [];
  for (const path of paths) {
    const read = await readRegularFile(path).catch((error: NodeJS.ErrnoException) => {
      if (path !== transcriptPath && (error.code === 'ENOENT' || error.code === 'EISDIR')) return undefined;
      throw error;
    });
    if (read === undefined || (read.kind === 'directory' && path !== transcriptPath)) continue;
    if (read.kind !== 'file') {
      const what = read.kind === 'directory' ? 'a directory' : `a ${read.kind}`;
      const why = path === transcriptPath ? 'a transcript is a regular file' : 'Reasonix 1.38.11 resuming the transcript waits on it forever';
      throw new NotRegularFileError(`${what}, not a regular file: ${why}`, { file: path });
    }
    artifacts.push({ path, bytes: read.bytes });
  }
  return describeSource(transcriptPath, artifacts);
}

/** O_NONBLOCK: opening a FIFO for reading must not wait for a writer (Windows has no FIFOs to open). */
const OPEN_WITHOUT_WAITING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

type ReadResult = { kind: 'file'; bytes: Buffer } | { kind: 'directory' | 'FIFO' | 'socket' | 'device' };

async function readRegularFile(path: string): Promise<ReadResult> {
  const handle = await open(path, OPEN_WITHOUT_WAITING).catch((error: NodeJS.ErrnoException) => {
    // A Unix socket cannot be opened at all.
    if (error.code === 'ENXIO') return undefined;
    throw error;
  });
  if (!handle) return { kind: 'socket' };
  try {
    const stats = await handle.stat();
    if (stats.isFile()) {
      // Migration holds the source's bytes (it hashes them and keeps them in the session): past this bound they are refused.
      if (stats.size > MAX_STRING_LENGTH) throw new TooLargeError(`${stats.size} bytes, more than rxstore reads into memory (${MAX_STRING_LENGTH})`, { file: path, found: stats.size, expected: MAX_STRING_LENGTH });
      return { kind: 'file', bytes: await handle.readFile() };
    }
    if (stats.isDirectory()) return { kind: 'directory' };
    return { kind: stats.isFIFO() ? 'FIFO' : stats.isSocket() ? 'socket' : 'device' };
  } finally {
    await handle.close();
  }
}

export function describeSource(transcriptPath: string, artifacts: FrozenArtifact[], headId = ''): LegacySource {
  // SHA-256 over basename, NUL, bytes, NUL of each artifact in path order.
  const digest = createHash('sha256');
  for (const artifact of artifacts) digest.update(basename(artifact.path)).update(NUL).update(artifact.bytes).update(NUL);
  const sha256 = digest.digest('hex');
  const targetId = createHash('sha256')
    .update(transcriptPath)
    .update(NUL)
    .update(sha256)
    .update(NUL)
    .update(headId)
    .update(NUL)
    .update(V4_CODEC)
    .digest('hex')
    .slice(0, 24);
  return {
    path: transcriptPath,
    artifacts,
    size: artifacts.reduce((sum, artifact) => sum + artifact.bytes.length, 0),
    sha256,
    headId,
    targetId,
  };
}
