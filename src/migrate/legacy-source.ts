import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { InvalidInputError } from '../codec/errors.js';
import { basename } from 'node:path';
import { V4_CODEC } from '../codec/records.js';
import { transcriptSidecars } from '../store/jsonl-sidecars.js';

/** A file frozen for migration: its bytes as read once, so the copy and its digest agree. */
export interface FrozenArtifact {
  path: string;
  bytes: Buffer;
}

/** A transcript and its sidecars, frozen, with the digest and the target id Reasonix derives (spec §10.1). */
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

/** A transcript that is a FIFO, a device or a directory: reading it could block forever or mean nothing. */
export class NotRegularFileError extends InvalidInputError {
  override readonly code: string = 'RX_NOT_REGULAR_FILE';
}

/**
 * Reads the transcript and every sidecar that exists, in full path order. Only regular files are
 * read, as Reasonix freezes only regular-file sidecars (spec §10.1 step 1): each is opened without
 * blocking and checked before a byte is read, so a FIFO named like a transcript is refused at once.
 */
export async function freezeLegacySource(transcriptPath: string): Promise<LegacySource> {
  const paths = [transcriptPath, ...transcriptSidecars(transcriptPath)].sort();
  const artifacts: FrozenArtifact[] = [];
  for (const path of paths) {
    const bytes = await readRegularFile(path).catch((error: NodeJS.ErrnoException) => {
      if (path !== transcriptPath && (error.code === 'ENOENT' || error.code === 'EISDIR')) return undefined;
      throw error;
    });
    if (bytes === 'not-regular' && path === transcriptPath) throw new NotRegularFileError('not a regular file', { file: path });
    if (bytes instanceof Buffer) artifacts.push({ path, bytes });
  }
  return describeSource(transcriptPath, artifacts);
}

/** O_NONBLOCK: opening a FIFO for reading must not wait for a writer (Windows has no FIFOs to open). */
const OPEN_WITHOUT_WAITING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

async function readRegularFile(path: string): Promise<Buffer | 'not-regular'> {
  const handle = await open(path, OPEN_WITHOUT_WAITING);
  try {
    if (!(await handle.stat()).isFile()) return 'not-regular';
    return await handle.readFile();
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
