import { lstat, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { branchIdOf, readPathsOf } from '../store/jsonl/jsonl-sidecars.js';
import { transcriptModeIn } from '../store/roots/store-kind.js';
import { goJson, goJsonIndented } from '../codec/go-json/go-json.js';
import { ExportRefusedError, PathKindError, undefinedIfMissing } from '../errors/index.js';
import { writeFilesAtomic } from '../fs/atomic-files.js';
import { checkFile, checkOutside } from '../fs/path-kind.js';
import type { SessionRead } from '../session/verdict/read-session.js';
import { canonicalTranscript, personView } from '../session/replay/views.js';
import { workspaceOf } from '../session/verdict/read-session.js';
import { goMessage } from '../store/jsonl/jsonl-message.js';

/** What `exportSession` writes: a JSONL transcript (with its `.jsonl.meta`) or one JSON document. */
export type ExportFormat = 'jsonl' | 'json';
/** Which view of the session is exported. */
export type ExportView = 'canonical' | 'person';

/** Where and how `exportSession` writes. */
export interface ExportOptions {
  to: string;
  format: ExportFormat;
  /** JSONL: which messages; the canonical transcript by default (it is what Reasonix resumes). */
  view?: ExportView;
  /** Write over files already there (by default only a file holding exactly what is written is let be). */
  force?: boolean;
  /** `to` as the user gave it, for messages; default `to`. */
  given?: string;
}

/** What `exportSession` wrote. */
export interface ExportReport {
  to: string;
  files: string[];
  messages: number;
  /** The files that already held exactly what this export writes (an earlier run's), left as they were. */
  unchanged: string[];
}

/** A session as export writes it: the document (a JSONL transcript or one JSON document) and, for JSONL, its meta. */
export interface ExportedText {
  document: string;
  /** The `.jsonl.meta` beside a JSONL transcript; absent for JSON. */
  meta?: string;
  messages: number;
}

/**
 * A session as a JSONL transcript with its `.jsonl.meta` (which Reasonix can resume, and migrate
 * back into sessions-v4) or as one JSON document, as text; `id` names the transcript (its file
 * name without `.jsonl`). A session Reasonix would refuse, or one with nothing Reasonix would
 * resume, is refused with `ExportRefusedError`.
 */
export function exportedText(
  read: SessionRead,
  options: { format: ExportFormat; view?: ExportView; id: string },
): ExportedText {
  if (read.refusal) {
    // A partial transcript would pass for the whole session: salvage is the way to keep what precedes the damage.
    throw new ExportRefusedError(
      `not exported: Reasonix would refuse this session (${read.refusal.code}: ${read.refusal.message}); rxstore salvage writes what can still be read into a new session`,
      read.refusal.data,
    );
  }
  const view = options.view ?? 'canonical';
  const timed = canonicalTranscript(read.projection);
  const title = read.projection.title;
  const workspace = workspaceOf(read);
  const createdAt = read.manifest?.createdAt ?? read.firstCommitAt;
  if (options.format === 'json') {
    const messages =
      view === 'person'
        ? personView(read.projection)
        : timed.map(({ message, time }) => ({ ...message, time: new Date(time).toISOString() }));
    // Called as ls, inspect and view call it: its own title, else what the person first typed (`titleFrom` says which).
    return {
      document: goJsonIndented({
        id: read.id,
        ...read.projection.displayTitle,
        workspace: workspace ?? null,
        createdAt: createdAt ?? null,
        updatedAt: read.lastCommitAt ?? null,
        view,
        messages,
      }),
      messages: messages.length,
    };
  }
  const kept =
    view === 'person' ? timed.filter(({ message }) => message.origin !== 'host' && !message.local_only) : timed;
  if (kept.length === 0) {
    // Reasonix answers `no session matches` for an empty transcript resumed by id.
    throw new ExportRefusedError(
      `not exported: the session has no messages${view === 'person' ? ' a person reads' : ''}, and Reasonix does not resume an empty transcript`,
      { file: read.dir },
    );
  }
  // BranchMeta (docs/format.md §11.3): pretty JSON; the display title is custom_title.
  const meta = {
    id: options.id,
    ...(title ? { custom_title: title } : {}),
    created_at: createdAt ?? new Date(0).toISOString(),
    updated_at: read.lastCommitAt ?? createdAt ?? new Date(0).toISOString(),
    ...(workspace ? { scope: 'project', workspace_root: workspace } : {}),
  };
  return {
    document: kept.map(({ message }) => `${goJson(goMessage(message).message)}\n`).join(''),
    meta: goJsonIndented(meta),
    messages: kept.length,
  };
}

/** An export that writes nothing: the text it would write, with `id` naming the transcript (default the session's). */
export interface ExportTextOptions {
  format: ExportFormat;
  view?: ExportView;
  id?: string;
}

/**
 * Writes a session out as `exportedText` gives it: the document at `to`, and for JSONL its
 * `.jsonl.meta` beside it. Never writes over a file that holds something else, unless `force`.
 * Without `to`, writes nothing and gives the text instead.
 */
export async function exportSession(read: SessionRead, options: ExportOptions): Promise<ExportReport>;
export async function exportSession(read: SessionRead, options: ExportTextOptions): Promise<ExportedText>;
export async function exportSession(
  read: SessionRead,
  options: ExportOptions | ExportTextOptions,
): Promise<ExportReport | ExportedText> {
  if (!('to' in options)) {
    const { format, view, id } = options;
    return exportedText(read, { format, ...(view ? { view } : {}), id: id ?? read.id });
  }
  const given = options.given ?? options.to;
  const files = options.format === 'jsonl' ? [options.to, `${options.to}.meta`] : [options.to];
  // Only a regular file is written over, --force or not, and nothing inside the session exported.
  for (const [index, file] of files.entries()) {
    const named = index === 0 ? given : `${given}.meta`;
    await checkFile(file, named);
    await checkOutside(file, named, 'file', readPathsOf(read.dir));
  }
  const text = exportedText(read, { format: options.format, view: options.view, id: branchIdOf(options.to) });
  const writes = [
    { file: options.to, bytes: text.document },
    ...(text.meta === undefined ? [] : [{ file: `${options.to}.meta`, bytes: text.meta }]),
  ];
  // A file already holding exactly what this export writes is an interrupted run's: kept, not a conflict.
  const pending: typeof writes = [];
  for (const write of writes) {
    const there = await lstat(write.file).catch(undefinedIfMissing);
    if (!there) pending.push(write);
    else if (there.isDirectory())
      throw new PathKindError(`${write.file}: is a folder, a file is needed`, { file: write.file });
    else if (!(await sameText(write.file, write.bytes))) {
      if (!options.force)
        throw new ExportRefusedError(`${write.file} already exists and holds something else; --force writes over it`, {
          file: write.file,
        });
      pending.push(write);
    }
  }
  // A file the user asked for: the umask decides who else may read it, as with cp; in Reasonix's JSONL store, Reasonix's mode.
  // The transcript and its meta appear together or not at all, the meta first (a transcript never stands without it).
  const mode = transcriptModeIn(dirname(options.to));
  await writeFilesAtomic([...pending].reverse().map((write) => ({ path: write.file, data: write.bytes, mode })));
  const unchanged = writes.filter((write) => !pending.includes(write)).map((write) => write.file);
  return { to: options.to, files, messages: text.messages, unchanged };
}

/** Whether a regular file holds exactly `text`. */
async function sameText(file: string, text: string): Promise<boolean> {
  const stats = await lstat(file);
  return stats.isFile() && stats.size === Buffer.byteLength(text) && (await readFile(file, 'utf8')) === text;
}
