import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { branchIdOf, readPathsOf } from '../store/jsonl/jsonl-sidecars.js';
import { transcriptModeIn } from '../store/roots/store-kind.js';
import { goJson, goJsonIndented } from '../codec/go-json/go-json.js';
import { DamagedStoreError, ExportRefusedError, PathKindError, undefinedIfMissing } from '../errors/index.js';
import { writeFilesAtomic } from '../fs/atomic-files.js';
import { checkFile, checkOutside } from '../fs/path-kind.js';
import type { SessionRead } from '../session/verdict/read-session.js';
import {
  canonicalTranscript,
  personMessage,
  seenByPerson,
  transcriptClock,
  type TimedMessage,
} from '../session/replay/views.js';
import { streamedTranscript } from '../session/verdict/streamed-records.js';
import { transcriptEntries } from '../store/jsonl/transcript-records.js';
import { workspaceOf } from '../session/verdict/read-session.js';
import { goMessage } from '../store/jsonl/jsonl-message.js';
import type { OpenedSession } from '../store/open-session.js';
import { ImportRepairs } from '../store/jsonl/import-repairs.js';
import { collidingRecordKeys } from '../session/replay/transcript-records.js';
import type { Message } from '../session/replay/message.js';
import { StringTable } from '../compact/string-table.js';

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

/**
 * A session to export: one opened (`openSession`), read twice (what the export needs before its
 * messages, then the messages as they are written out, in memory that does not grow with the
 * session), or a whole read of one.
 */
export type ExportSource = OpenedSession | SessionRead;

/** A session as `exportStream` gives it: its document a piece at a time, and for JSONL its meta. */
export interface ExportedStream {
  /** The document's pieces, a message at a time: read them once. */
  document: AsyncIterable<string>;
  /** The `.jsonl.meta` beside a JSONL transcript; absent for JSON. */
  meta?: string;
  messages: number;
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
  const plan = exportPlan(read, options);
  if (plan.resumeCheck) {
    const check = plan.resumeCheck();
    for (const timed of canonicalTranscript(read.projection)) check.add(timed);
    check.finish();
  }
  const writer = messageWriter(plan);
  const pieces = [plan.head];
  for (const timed of canonicalTranscript(read.projection)) pieces.push(writer(timed) ?? '');
  pieces.push(plan.tail);
  return {
    document: pieces.join(''),
    ...(plan.meta === undefined ? {} : { meta: plan.meta }),
    messages: plan.messages,
  };
}

/** What writes the messages of a document one after another, as `plan` writes each. */
function messageWriter(plan: ExportPlan): (timed: TimedMessage) => string | undefined {
  let written = 0;
  return (timed) => {
    const text = plan.piece(timed, written === 0);
    if (text !== undefined) written += 1;
    return text;
  };
}

/**
 * The document of `plan` over messages read as they come (an opened session's `transcript()`), a
 * message at a time. A session that holds other messages than the plan counted changed between its
 * reads: the document would not be the session as it was, so it ends in an error.
 */
async function* streamedDocument(
  plan: ExportPlan,
  transcript: AsyncIterable<TimedMessage>,
  session: string,
): AsyncGenerator<string> {
  const writer = messageWriter(plan);
  yield plan.head;
  let written = 0;
  for await (const timed of transcript) {
    const text = writer(timed);
    if (text === undefined) continue;
    written += 1;
    yield text;
  }
  if (written !== plan.messages)
    throw new DamagedStoreError(
      `the session changed while it was exported (${written} messages read where ${plan.messages} were counted); export it again`,
      { file: session },
    );
  yield plan.tail;
}

/**
 * What an export writes, decided before its first message is read: the document's text before the
 * messages, each message's, and after them; the meta beside a transcript; how many messages it holds.
 */
interface ExportPlan {
  head: string;
  /** A message's text in the document (`first`: none was written before it); undefined for one it leaves out. */
  piece(timed: TimedMessage, first: boolean): string | undefined;
  tail: string;
  meta?: string;
  messages: number;
  /** A JSONL export's: what reads its messages before they are written, refusing a transcript Reasonix would refuse. */
  resumeCheck?: () => ResumeCheck;
}

/**
 * Whether Reasonix resumes the transcript an export writes, its messages given one after another (`add`, then
 * `finish`): its import repairs the transcript (`ImportRepairs`), and a call whose result does not come right
 * after it gets a stand-in result there, the real one then a second record for the call, which Reasonix
 * refuses (`duplicate transcript record`). Moving the result would change what the conversation says (another
 * message came between), so such a session is refused (`ExportRefusedError`), as `rxstore salvage` is the way on.
 */
class ResumeCheck {
  private readonly repairs = new ImportRepairs<number>();
  private readonly keys = new StringTable();
  private at = 0;

  constructor(
    private readonly writes: (message: Message) => boolean,
    private readonly session: string,
  ) {}

  add({ message }: TimedMessage): void {
    if (!this.writes(message)) return;
    const { message: written } = goMessage(message);
    this.check(this.repairs.push({ message: written, written, place: this.at }));
    this.at += 1;
  }

  finish(): void {
    this.check(this.repairs.finish());
  }

  private check(settled: { message: Record<string, unknown>; place: number }[]): void {
    for (const { message, place } of settled)
      for (const key of collidingRecordKeys(message as unknown as Message)) {
        if (this.keys.find(key) >= 0) {
          const call = key.startsWith('tool:') ? ` of tool call ${JSON.stringify(key.slice('tool:'.length))}` : '';
          throw new ExportRefusedError(
            `not exported as JSONL: the result${call} does not come right after its call (message ${place} of the transcript), and Reasonix would refuse the transcript written (its import adds a stand-in result after the call, and then holds two: duplicate transcript record ${JSON.stringify(key)}); --format json exports it, rxstore salvage writes a session Reasonix goes on with`,
            { file: this.session, messageIndex: place },
          );
        }
        this.keys.intern(key);
      }
  }
}

/**
 * The plan of an export of `read`: a whole read, or one that kept the transcript's index and the
 * previews of what was typed (all an export needs before its messages). The refusals are
 * `exportedText`'s.
 */
function exportPlan(read: SessionRead, options: { format: ExportFormat; view?: ExportView; id: string }): ExportPlan {
  if (read.refusal) {
    // A partial transcript would pass for the whole session: salvage is the way to keep what precedes the damage.
    throw new ExportRefusedError(
      `not exported: Reasonix would refuse this session (${read.refusal.code}: ${read.refusal.message}); rxstore salvage writes what can still be read into a new session`,
      read.refusal.data,
    );
  }
  const view = options.view ?? 'canonical';
  const index = read.projection.transcriptIndex;
  const messages = view === 'canonical' ? index.length : index.seenByPersonCount();
  const title = read.projection.title;
  const workspace = workspaceOf(read);
  const createdAt = read.manifest?.createdAt ?? read.firstCommitAt;
  if (options.format === 'json') {
    // Called as ls, inspect and view call it: its own title, else what the person first typed (`titleFrom` says which).
    const shell = goJsonIndented({
      id: read.id,
      ...read.projection.displayTitle,
      workspace: workspace ?? null,
      createdAt: createdAt ?? null,
      updatedAt: read.lastCommitAt ?? null,
      view,
      messages: [],
    });
    // The messages are the document's last field: written one by one where `[]` stood, indented as in the whole.
    const empty = shell.lastIndexOf('[]');
    return {
      head: shell.slice(0, empty + 1),
      piece(timed, first) {
        const message =
          view === 'person' ? personMessage(timed) : { ...timed.message, time: new Date(timed.time).toISOString() };
        if (message === undefined) return undefined;
        return `${first ? '' : ','}\n${goJsonIndented(message).trimEnd().replace(/^/gm, '    ')}`;
      },
      tail: `${messages > 0 ? '\n  ' : ''}${shell.slice(empty + 1)}`,
      messages,
    };
  }
  if (messages === 0) {
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
  const writes = (message: Message) => view === 'canonical' || seenByPerson(message);
  return {
    head: '',
    piece: ({ message }) => (writes(message) ? `${goJson(goMessage(message).message)}\n` : undefined),
    tail: '',
    meta: goJsonIndented(meta),
    messages,
    resumeCheck: () => new ResumeCheck(writes, read.dir),
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
 * Without `to`, writes nothing and gives the text instead (held whole: `exportStream` gives it a
 * message at a time). An opened session's document is written as its messages are read.
 */
export async function exportSession(session: ExportSource, options: ExportOptions): Promise<ExportReport>;
export async function exportSession(session: ExportSource, options: ExportTextOptions): Promise<ExportedText>;
export async function exportSession(
  session: ExportSource,
  options: ExportOptions | ExportTextOptions,
): Promise<ExportReport | ExportedText> {
  if (!('to' in options)) {
    const read = isWholeRead(session) ? session : await session.read();
    const { format, view, id } = options;
    return exportedText(read, { format, ...(view ? { view } : {}), id: id ?? read.id });
  }
  const given = options.given ?? options.to;
  const { read, transcript } = await exportRead(session);
  const files = options.format === 'jsonl' ? [options.to, `${options.to}.meta`] : [options.to];
  // Only a regular file is written over, --force or not, and nothing inside the session exported.
  for (const [index, file] of files.entries()) {
    const named = index === 0 ? given : `${given}.meta`;
    await checkFile(file, named);
    await checkOutside(file, named, 'file', readPathsOf(read.dir));
  }
  const plan = exportPlan(read, { format: options.format, view: options.view, id: branchIdOf(options.to) });
  await checkResumable(plan, transcript);
  const writes: { file: string; data: string | (() => AsyncIterable<string>) }[] = [
    { file: options.to, data: () => streamedDocument(plan, transcript(), read.dir) },
    ...(plan.meta === undefined ? [] : [{ file: `${options.to}.meta`, data: plan.meta }]),
  ];
  // A file already holding exactly what this export writes is an interrupted run's: kept, not a conflict.
  const pending: typeof writes = [];
  for (const write of writes) {
    const there = await lstat(write.file).catch(undefinedIfMissing);
    if (!there) pending.push(write);
    else if (there.isDirectory())
      throw new PathKindError(`${write.file}: is a folder, a file is needed`, { file: write.file });
    else if (!(await holdsExactly(write.file, write.data))) {
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
  await writeFilesAtomic([...pending].reverse().map((write) => ({ path: write.file, data: write.data, mode })));
  const unchanged = writes.filter((write) => !pending.includes(write)).map((write) => write.file);
  return { to: options.to, files, messages: plan.messages, unchanged };
}

/**
 * A session as `exportedText` gives it, its document a piece at a time: an opened session's messages
 * are read as the pieces are taken, in memory that does not grow with the session. Refused as
 * `exportedText` refuses, before any piece.
 */
export async function exportStream(session: ExportSource, options: ExportTextOptions): Promise<ExportedStream> {
  const { read, transcript } = await exportRead(session);
  const plan = exportPlan(read, {
    format: options.format,
    ...(options.view ? { view: options.view } : {}),
    id: options.id ?? read.id,
  });
  await checkResumable(plan, transcript);
  return {
    document: streamedDocument(plan, transcript(), read.dir),
    ...(plan.meta === undefined ? {} : { meta: plan.meta }),
    messages: plan.messages,
  };
}

/** The plan's `resumeCheck` over the messages, read once more before any is written (nothing is written when it refuses). */
async function checkResumable(plan: ExportPlan, transcript: () => AsyncIterable<TimedMessage>): Promise<void> {
  if (!plan.resumeCheck) return;
  const check = plan.resumeCheck();
  for await (const timed of transcript()) check.add(timed);
  check.finish();
}

function isWholeRead(session: ExportSource): session is SessionRead {
  return 'projection' in session;
}

/**
 * What an export reads before its messages (of an opened session, a read that keeps only the
 * transcript's index and the previews of what was typed), and its messages, timed.
 */
async function exportRead(
  session: ExportSource,
): Promise<{ read: SessionRead; transcript: () => AsyncIterable<TimedMessage> }> {
  if (isWholeRead(session)) {
    const timed = canonicalTranscript(session.projection);
    return {
      read: session,
      transcript: async function* () {
        yield* timed;
      },
    };
  }
  const read = await session.read({ keep: 'index', previews: true });
  // Read again from this read, never from a newer one: a session written to since (Reasonix at work in it) is
  // exported as it was when the plan counted its messages, the batches appended since left for the next export.
  const firstPass = async () => read;
  return {
    read,
    transcript: async function* () {
      const clock = transcriptClock();
      const entries =
        session.format === 'jsonl'
          ? transcriptEntries(session.path, firstPass)
          : streamedTranscript(session.path, firstPass);
      for await (const entry of entries) yield clock(entry);
    },
  };
}

/**
 * Whether a regular file holds exactly `data`: text, or a document written a piece at a time,
 * whose digest is taken as it is made (the session read once more) and compared with the file's.
 */
async function holdsExactly(file: string, data: string | (() => AsyncIterable<string>)): Promise<boolean> {
  const stats = await lstat(file);
  if (!stats.isFile()) return false;
  if (typeof data === 'string')
    return stats.size === Buffer.byteLength(data) && (await readFile(file, 'utf8')) === data;
  const made = createHash('sha256');
  let size = 0;
  for await (const piece of data()) {
    const bytes = Buffer.from(piece, 'utf8');
    size += bytes.length;
    if (size > stats.size) return false;
    made.update(bytes);
  }
  if (size !== stats.size) return false;
  const held = createHash('sha256');
  for await (const chunk of createReadStream(file)) held.update(chunk as Buffer);
  return held.digest('hex') === made.digest('hex');
}
