import { V4_CODEC } from '../../codec/records.js';
import { statOrCode } from '../../fs/files-stamp.js';
import { freezeLegacySource } from '../jsonl/legacy-source.js';
import { transcriptSidecars } from '../jsonl/jsonl-sidecars.js';
import type { RecordedCopy } from './recorded-copy.js';
import type { SessionCopy } from './session-copy.js';

/**
 * The v4 copies (their paths) migrated from a JSONL transcript that no longer holds what was migrated:
 * appended to or rewritten since (docs/format.md §10.1). Reasonix asked to resume such a transcript
 * migrates it again, under a new id, and leaves the old copy as it is: from then on they are two
 * conversations, and what was written to the transcript since is in it alone.
 *
 * A stat of the transcript and its sidecars first: sizes that do not add up to the migrated `source.size`
 * say it changed. Equal sizes with every file's change time (which no one can set back) before the
 * migration's `createdAt` say it did not. Otherwise the files are hashed as Reasonix hashes them
 * (`freezeLegacySource`). A transcript that cannot be read is taken as unchanged: nothing is split on a
 * guess. Every file looked at is added to `looked`, so that a listing kept while they stay the same is
 * still true.
 */
export async function outgrownMigrations(
  copies: readonly SessionCopy[],
  recordedCopy: RecordedCopy,
  looked: string[],
): Promise<Set<string>> {
  const outgrown = new Set<string>();
  const digests = new Map<string, Promise<string | undefined>>();
  for (const copy of copies) {
    if (copy.format !== 'v4' || copy.manifest.state !== 'ok') continue;
    const { source, createdAt } = copy.manifest.value;
    // A source that names no size or digest says nothing to compare with: the two stay one conversation.
    if (!source?.path || source.version === V4_CODEC || source.size === undefined || !source.sha256) continue;
    const at = recordedCopy(source.path, copy);
    const transcript = at === undefined ? undefined : copies[at];
    if (transcript?.format !== 'jsonl') continue;
    const files = [transcript.path, ...transcriptSidecars(transcript.path)];
    looked.push(...files);
    const stats = files.map((file) => statOrCode(file)).filter((stats) => typeof stats !== 'string');
    if (stats.some((stats) => !stats.isFile() && !stats.isDirectory())) continue;
    const regular = stats.filter((stats) => stats.isFile());
    const size = regular.reduce((sum, stats) => sum + Number(stats.size), 0);
    if (size !== source.size) {
      outgrown.add(copy.path);
      continue;
    }
    const migratedAt = Date.parse(createdAt ?? '');
    if (regular.every((stats) => Number(stats.ctimeMs) < migratedAt)) continue;
    if (!digests.has(transcript.path)) digests.set(transcript.path, digestOf(transcript.path));
    const digest = await digests.get(transcript.path);
    if (digest !== undefined && digest !== source.sha256) outgrown.add(copy.path);
  }
  return outgrown;
}

/** The digest Reasonix takes of a transcript and its sidecars, or undefined when they cannot be read. */
async function digestOf(transcript: string): Promise<string | undefined> {
  try {
    return (await freezeLegacySource(transcript)).sha256;
  } catch {
    return undefined;
  }
}
