import { basename } from 'node:path';
import { FileSystemError, WriterOwnedError } from '../../errors/index.js';
import { isOsLockHeld, tryRemovableOsLock, type OsLock } from '../../fs/os-lock.js';

/** Reasonix holds a lease for as long as one migration takes; another rxstore's migration of the same transcript is waited for this long. */
const LEASE_ATTEMPTS = 200;
const LEASE_RETRY_MS = 10;

/** Reasonix's lease on a JSONL transcript: `<id>.jsonl.lease.lock` beside it (docs/format.md §9.5, §10.1). */
export function transcriptLeasePath(transcriptPath: string): string {
  return `${transcriptPath}.lease.lock`;
}

/**
 * Takes the lease Reasonix takes on a transcript before it freezes it for a migration and holds until the
 * session is published (docs/format.md §10.1): held by rxstore, a `reasonix --resume` of the transcript is
 * refused ("this session is in use by another Reasonix window or process") rather than publishing the same
 * session at the same moment; held by another (a Reasonix, another rxstore), it is waited for a moment, then
 * `WriterOwnedError`. Undefined in a folder this user may not write, where no lease can be taken: no Reasonix
 * of this user can take one there either, and one another user's Reasonix holds is seen by a look.
 */
export async function takeTranscriptLease(transcriptPath: string): Promise<OsLock | undefined> {
  const path = transcriptLeasePath(transcriptPath);
  for (let attempt = 0; attempt < LEASE_ATTEMPTS; attempt += 1) {
    let lease: OsLock | undefined;
    try {
      lease = await tryRemovableOsLock(path);
    } catch (error) {
      const unwritable =
        error instanceof FileSystemError && ['EACCES', 'EPERM', 'EROFS'].includes(error.data.errno ?? '');
      if (!unwritable) throw error;
      if (!(await isOsLockHeld(path))) return undefined;
    }
    if (lease) return lease;
    await new Promise((resolve) => setTimeout(resolve, LEASE_RETRY_MS));
  }
  throw new WriterOwnedError(
    `in use by a running Reasonix or rxstore (its lease, ${basename(path)}, stayed locked): nothing was migrated; try again once it is done`,
    { file: transcriptPath },
  );
}
