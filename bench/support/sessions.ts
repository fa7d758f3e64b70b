import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { simpleWorkspaceSlug } from '../../test/support/reasonix/reasonix.js';
import { cachedInput } from './cached-input.js';
import { benchWorkspace } from './paths.js';
import { writeSession, type WrittenSession } from './write-session.js';

export const MiB = 1024 * 1024;

export interface BenchSession extends WrittenSession {
  /** A state root holding only this session: `projects/<slug>/sessions-v4/<id>/` and the store's `.content-v1`. */
  stateRoot: string;
  storeDir: string;
  /** `events.frames` of the session. */
  log: string;
}

/** The store of the bench workspace inside a state root (docs/format.md §1.2). */
export function benchStore(stateRoot: string): string {
  return join(stateRoot, 'projects', simpleWorkspaceSlug(benchWorkspace), 'sessions-v4');
}

/** A realistic session of at least `rawMiB` MiB of raw record bytes, generated once and reused. */
export async function benchSession(rawMiB: number): Promise<BenchSession> {
  const name = `session-${rawMiB}mib`;
  const id = createHash('sha256').update(name).digest('hex').slice(0, 32);
  const spec = { rawBytes: rawMiB * MiB, seed: 20261130, workspace: benchWorkspace };
  const input = await cachedInput(name, { id, ...spec }, (dir) => writeSession(benchStore(dir), id, spec));
  const storeDir = benchStore(input.dir);
  const dir = join(storeDir, id);
  return { ...input.value, dir, stateRoot: input.dir, storeDir, log: join(dir, 'events.frames') };
}
