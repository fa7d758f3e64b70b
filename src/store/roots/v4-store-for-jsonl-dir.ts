import { basename, dirname, join } from 'node:path';

/**
 * The sessions-v4 store beside a JSONL directory, as Reasonix picks it (docs/format.md §1.2
 * "RootForLegacyDir"): the sibling `sessions-v4` of a `sessions` directory, else `<dir>/sessions-v4`.
 */
export function v4StoreForJsonlDir(jsonlDir: string): string {
  return basename(jsonlDir) === 'sessions' ? join(dirname(jsonlDir), 'sessions-v4') : join(jsonlDir, 'sessions-v4');
}
