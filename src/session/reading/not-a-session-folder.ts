import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { PathKindError } from '../../errors/index.js';
import { SESSION_FILES } from './session-files.js';

/**
 * Refuses a `--to` store that is itself a session (its manifest or its log there): a session
 * published inside it is one Reasonix never finds, and the folder's files are another session's.
 */
export async function refuseSessionFolder(path: string, given: string): Promise<void> {
  for (const name of [SESSION_FILES.manifest, SESSION_FILES.log]) {
    const there = await lstat(join(path, name)).then(
      () => true,
      () => false,
    );
    if (there)
      throw new PathKindError(`${given}: is a session (it holds ${name}), not a sessions-v4 directory`, {
        file: given,
      });
  }
}
