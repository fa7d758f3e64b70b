import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { MigrationRefusedError, NotRegularFileError } from '../../errors/index.js';
import { V4_CODEC } from '../../codec/records.js';
import { transcriptSidecars } from './jsonl-sidecars.js';
import { waitsForever } from '../../fs/waits-forever.js';

/**
 * A file frozen for migration: its size and digest as read once. Its bytes are never held: every
 * later read of it (the legacy copy, the messages) is checked against the digest, so what the
 * session keeps is what was hashed.
 */
export interface FrozenArtifact {
  path: string;
  size: number;
  sha256: string;
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
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * Hashes the transcript and every sidecar that exists, in full path order, as Reasonix freezes them
 * (docs/format.md §10.1 step 1), a chunk at a time: memory does not grow with the files. A sidecar
 * name taken by a directory is passed over, as Reasonix does; any other file that is not a regular
 * file is refused. Each is opened without blocking and checked before a byte is read, so a FIFO
 * named like a transcript fails at once instead of hanging.
 */
export async function freezeLegacySource(transcriptPath: string): Promise<LegacySource> {
  const paths = [transcriptPath, ...transcriptSidecars(transcriptPath)].sort();
  const digest = createHash('sha256');
  const artifacts: FrozenArtifact[] = [];
  for (const path of paths) {
    const own = createHash('sha256');
    // SHA-256 over basename, NUL, bytes, NUL of each artifact in path order; the name only once the file is known to be one.
    const read = await readRegularFile(
      path,
      (chunk) => {
        digest.update(chunk);
        own.update(chunk);
      },
      () => digest.update(basename(path)).update(NUL),
    ).catch((error: NodeJS.ErrnoException) => {
      if (path !== transcriptPath && (error.code === 'ENOENT' || error.code === 'EISDIR')) return undefined;
      throw error;
    });
    if (read === undefined || ((read.kind === 'directory' || read.kind === 'empty device') && path !== transcriptPath))
      continue;
    if (read.kind !== 'file') {
      const what =
        read.kind === 'directory' ? 'a directory' : read.kind === 'empty device' ? 'a device' : `a ${read.kind}`;
      const why =
        path === transcriptPath
          ? 'a transcript is a regular file'
          : 'Reasonix 1.38.11 resuming the transcript waits on it forever';
      throw new NotRegularFileError(`${what}, not a regular file: ${why}`, { file: path });
    }
    digest.update(NUL);
    artifacts.push({ path, size: read.size, sha256: own.digest('hex') });
  }
  const sha256 = digest.digest('hex');
  const headId = '';
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
  const size = artifacts.reduce((sum, artifact) => sum + artifact.size, 0);
  return { path: transcriptPath, artifacts, size, sha256, headId, targetId };
}

/** A frozen file opened again: read it in order with `readAt`; `verify` reads what is left and refuses bytes that are not the ones frozen. */
export interface ArtifactReader {
  /** Fills `buffer` from `position`, which is where the last read ended; how many bytes, 0 at the end. */
  readAt(buffer: Buffer, position: number): Promise<number>;
  verify(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens `artifact` again to read what was frozen of it (the legacy copy, the messages): its bytes
 * are hashed as they are read, and `verify` refuses them when they are not the ones frozen (the
 * file changed since), so nothing built from other bytes is published.
 */
export async function openArtifact(artifact: FrozenArtifact): Promise<ArtifactReader> {
  const handle = await open(artifact.path, OPEN_WITHOUT_WAITING);
  try {
    if (!(await handle.stat()).isFile()) throw changedWhileMigrated(artifact.path);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const own = createHash('sha256');
  let size = 0;
  const readAt = async (buffer: Buffer, position: number) => {
    // Read in order, so that the digest is of the file's bytes as they stand.
    if (position !== size) throw new Error(`artifact read out of order at ${position}, after ${size} bytes`);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    own.update(buffer.subarray(0, bytesRead));
    size += bytesRead;
    return bytesRead;
  };
  return {
    readAt,
    async verify() {
      const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      while ((await readAt(buffer, size)) > 0);
      if (size !== artifact.size || own.digest('hex') !== artifact.sha256) throw changedWhileMigrated(artifact.path);
    },
    close: () => handle.close(),
  };
}

/** Writes the frozen bytes of `artifact` through `write` a chunk at a time, refusing them when they changed since. */
export async function copyArtifact(
  artifact: FrozenArtifact,
  write: (data: Uint8Array) => Promise<void>,
): Promise<void> {
  const reader = await openArtifact(artifact);
  try {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let position = 0;
    for (let read = await reader.readAt(buffer, 0); read > 0; read = await reader.readAt(buffer, position)) {
      await write(buffer.subarray(0, read));
      position += read;
    }
    await reader.verify();
  } finally {
    await reader.close();
  }
}

/** The refusal of a source that changed while it was migrated: what was hashed is no longer what is read. */
export function changedWhileMigrated(file: string): MigrationRefusedError {
  return new MigrationRefusedError(
    'the file changed while it was migrated; nothing of it was published: migrate it again once it is still',
    { file },
  );
}

/** O_NONBLOCK: opening a FIFO for reading must not wait for a writer (Windows has no FIFOs to open). */
const OPEN_WITHOUT_WAITING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

type ReadResult =
  | { kind: 'file'; size: number }
  | { kind: 'directory' | 'empty device' | 'FIFO' | 'socket' | 'device' };

/** Reads a regular file a chunk at a time, each chunk given to `each` before the next is read; `isFile` first, once it is known to be one. */
async function readRegularFile(
  path: string,
  each: (chunk: Buffer) => void | Promise<void>,
  isFile?: () => void,
): Promise<ReadResult> {
  const handle = await open(path, OPEN_WITHOUT_WAITING).catch((error: NodeJS.ErrnoException) => {
    // A Unix socket cannot be opened at all.
    if (error.code === 'ENXIO') return undefined;
    throw error;
  });
  if (!handle) return { kind: 'socket' };
  try {
    const stats = await handle.stat();
    if (stats.isFile()) {
      isFile?.();
      const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      let size = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, size);
        if (bytesRead === 0) break;
        await each(buffer.subarray(0, bytesRead));
        size += bytesRead;
      }
      return { kind: 'file', size };
    }
    if (stats.isDirectory()) return { kind: 'directory' };
    // A device whose read ends at once (`/dev/null`): Reasonix leaves it out of what it freezes, as a directory.
    if (stats.isCharacterDevice() && !waitsForever(path)) return { kind: 'empty device' };
    return { kind: stats.isFIFO() ? 'FIFO' : stats.isSocket() ? 'socket' : 'device' };
  } finally {
    await handle.close();
  }
}
