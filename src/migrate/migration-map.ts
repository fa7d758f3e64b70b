import { join } from 'node:path';
import * as z from 'zod';
import { goJsonIndented } from '../codec/go-json/go-json.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { waitOsLock } from '../fs/os-lock.js';
import { readableOrThrow, readJsonFile } from '../session/reading/read-json-file.js';
import { DamagedStoreError, WriterOwnedError } from '../errors/index.js';

export const MigrationEntrySchema = z.looseObject({
  sourcePath: z.string(),
  sourceSize: z.number().int().nonnegative(),
  sourceSha256: z.string(),
  legacyHeadId: z.string().optional(),
  targetCodec: z.string(),
  targetId: z.string(),
  createdAt: z.string(),
});
export type MigrationEntry = z.infer<typeof MigrationEntrySchema>;

/** `<sessions-v4>/migration-map.json`: which legacy source became which session (docs/format.md §10.1 step 6). */
export const MigrationMapSchema = z.looseObject({
  schemaVersion: z.literal(4),
  entries: z.array(MigrationEntrySchema).nullable(),
});

export const MIGRATION_MAP = 'migration-map.json';

const sortKey = (entry: MigrationEntry) => [
  entry.sourcePath,
  entry.sourceSha256,
  entry.legacyHeadId ?? '',
  entry.targetCodec,
];

/**
 * Records a migration in the store's map, as Reasonix does: under the OS lock on
 * `migration-map.json.lock`, entries sorted, written atomically. An existing entry for the same
 * source is kept (a re-run repairs a missing entry and changes nothing else).
 */
export async function recordMigration(storeDir: string, entry: MigrationEntry): Promise<void> {
  const path = join(storeDir, MIGRATION_MAP);
  // One update at a time within this process (a bulk migration runs several); the OS lock orders processes.
  const previous = pending.get(path) ?? Promise.resolve();
  const update = previous.then(() => updateMap(path, entry));
  // The next update waits for this one to settle, not to succeed: this one's failure is thrown below, to its caller.
  const settled = update.catch(() => undefined);
  pending.set(path, settled);
  try {
    await update;
  } finally {
    if (pending.get(path) === settled) pending.delete(path);
  }
}

const pending = new Map<string, Promise<void>>();

/** Reasonix holds this lock for a moment; another rxstore may hold it a little longer. */
const LOCK_ATTEMPTS = 200;
const LOCK_RETRY_MS = 10;

async function updateMap(path: string, entry: MigrationEntry): Promise<void> {
  const lock = await waitOsLock(`${path}.lock`, LOCK_ATTEMPTS, LOCK_RETRY_MS);
  if (!lock)
    throw new WriterOwnedError('migration-map.json stayed locked by another process (a running Reasonix or rxstore)', {
      file: `${path}.lock`,
    });
  try {
    const current = readableOrThrow(await readJsonFile(path, MigrationMapSchema));
    if (current.state === 'invalid')
      throw new DamagedStoreError(`migration-map.json is not valid: ${current.reason}`, { file: path });
    const entries = current.state === 'ok' ? [...(current.value.entries ?? [])] : [];
    const key = JSON.stringify(sortKey(entry));
    if (entries.some((existing) => JSON.stringify(sortKey(existing)) === key)) return;
    entries.push(entry);
    entries.sort((a, b) => {
      const [x, y] = [sortKey(a), sortKey(b)];
      for (let index = 0; index < x.length; index += 1)
        if (x[index] !== y[index]) return x[index]! < y[index]! ? -1 : 1;
      return 0;
    });
    await writeFileAtomic(
      path,
      goJsonIndented({ ...(current.state === 'ok' ? current.value : { schemaVersion: 4 }), entries }),
    );
  } finally {
    await lock.release();
  }
}
