import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
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

/** Reads the transcript and every sidecar that exists, in full path order. */
export async function freezeLegacySource(transcriptPath: string): Promise<LegacySource> {
  const paths = [transcriptPath, ...transcriptSidecars(transcriptPath)].sort();
  const artifacts: FrozenArtifact[] = [];
  for (const path of paths) {
    const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
      if (path !== transcriptPath && (error.code === 'ENOENT' || error.code === 'EISDIR')) return undefined;
      throw error;
    });
    if (bytes) artifacts.push({ path, bytes });
  }
  return describeSource(transcriptPath, artifacts);
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
