import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { isSystemError, NotRegularFileError, NothingToSalvageError, onFileSystem } from '../errors/index.js';
import { openRegularFile } from '../fs/open-regular-file.js';
import { writeFilesAtomic } from '../fs/atomic-files.js';
import { checkFolder, checkOutside } from '../fs/path-kind.js';
import { refuseSessionFolder } from '../session/reading/not-a-session-folder.js';
import { readableOrThrow } from '../session/reading/read-json-file.js';
import { branchIdOf, stemWithin, transcriptReadPaths } from '../store/jsonl/jsonl-sidecars.js';
import { transcriptModeIn } from '../store/roots/store-kind.js';
import { jsonlMetaWithId, readJsonlMeta } from '../store/jsonl/jsonl-meta.js';
import { MAX_TRANSCRIPT_MESSAGE_BYTES, parseTranscript } from '../store/jsonl/jsonl-transcript.js';
import { goText } from '../codec/go-json/go-text.js';
import { checkPath } from '../errors/caller-input.js';

/** A line of the damaged transcript that was left out of the salvaged one, and why. */
export interface DroppedLine {
  line: number;
  reason: string;
}

export interface TranscriptSalvageReport {
  source: string;
  /** `already-salvaged`: a transcript salvaged from these very lines is there already; nothing was written. */
  action: 'salvaged' | 'would-salvage' | 'already-salvaged';
  /** The new transcript (its `.jsonl.meta` beside it when the source had a readable one). */
  newPath: string;
  newId: string;
  linesKept: number;
  dropped: DroppedLine[];
  /** A byte-order mark at the start of the file, which Reasonix does not read past, was left out. */
  byteOrderMarkRemoved: boolean;
}

const BYTE_ORDER_MARK = '\uFEFF';

/**
 * Recovers a JSONL transcript with bad lines into a new transcript beside it (or in `to`) and
 * leaves the original untouched: every line that is a message on its own, byte for byte and in
 * order (Reasonix reads a transcript as one stream, so one cut line stops it; here it costs only
 * itself); bad lines are left out and listed. The new transcript's id is `<id>-salvaged` (then `-2`, `-3`, …),
 * so it never takes the place of the original; `reasonix --resume <new id>` or `rxstore migrate`
 * take it from there. Its `.jsonl.meta` is the original's with the new id.
 */
export async function salvageTranscript(
  path: string,
  options: { to?: string; dryRun?: boolean } = {},
): Promise<TranscriptSalvageReport> {
  checkPath(path);
  if (options.to !== undefined) checkPath(options.to, 'to');
  const source = resolve(path);
  // A folder named with --to is written into, never made: a typo would otherwise put the transcript where no one looks.
  if (options.to !== undefined) {
    await checkFolder(resolve(options.to), options.to, { mustExist: true });
    await checkOutside(resolve(options.to), options.to, 'folder', transcriptReadPaths(source));
    await refuseSessionFolder(resolve(options.to), options.to);
  }
  let byteOrderMarkRemoved = false;
  // Line by line, each judged on its own as Reasonix's loader would judge it: a bad line costs only itself.
  const kept: { raw: string; line: number; value: Record<string, unknown> | null }[] = [];
  const dropped: DroppedLine[] = [];
  for await (const { line, bytes } of linesOf(source)) {
    if (bytes === undefined) {
      dropped.push({
        line,
        reason: `line ${line}: more than ${MAX_TRANSCRIPT_MESSAGE_BYTES} bytes, more than rxstore reads into memory (RX_TOO_LARGE)`,
      });
      continue;
    }
    let raw = goText(bytes);
    if (line === 1 && raw.startsWith(BYTE_ORDER_MARK)) {
      byteOrderMarkRemoved = true;
      raw = raw.slice(BYTE_ORDER_MARK.length);
    }
    if (raw.trim() === '') continue;
    const { lines, errors } = parseTranscript(raw, source);
    if (errors.length === 0 && lines.length === 1)
      kept.push({ raw, line, value: lines[0]!.value as Record<string, unknown> | null });
    else {
      // Judged alone, a line that runs out inside its message was cut, whatever follows it in the file.
      const why =
        errors[0]?.message
          .replace(/^line \d+: /, '')
          .replace('the file ends inside a message', 'the line ends inside a message') ??
        'more than one message on the line';
      dropped.push({ line, reason: `line ${line}: ${why}` });
    }
  }
  const answered = keptResults(kept, dropped);
  if (answered.length === 0)
    throw new NothingToSalvageError(`${source}: no line of it is a message; there is nothing to salvage`, {
      file: source,
    });
  dropped.sort((a, b) => a.line - b.line);

  const dir = resolve(options.to ?? dirname(source));
  const salvaged = `${answered.map((each) => each.raw).join('\n')}\n`;
  const meta = readableOrThrow(await readJsonlMeta(source));
  const metaText = (id: string) => (meta.state === 'ok' ? jsonlMetaWithId(meta.text, id) : undefined);
  const { path: newPath, already } = await salvagePath(dir, branchIdOf(source), salvaged, metaText);
  const report: TranscriptSalvageReport = {
    source,
    action: already ? 'already-salvaged' : options.dryRun ? 'would-salvage' : 'salvaged',
    newPath,
    newId: branchIdOf(newPath),
    linesKept: answered.length,
    dropped,
    byteOrderMarkRemoved,
  };
  if (options.dryRun || already) return report;
  const mode = transcriptModeIn(dir);
  const newMeta = metaText(report.newId);
  // The transcript and its meta appear together or not at all, the meta first (a transcript never stands without it).
  await writeFilesAtomic([
    ...(newMeta === undefined ? [] : [{ path: `${newPath}.meta`, data: newMeta, mode }]),
    { path: newPath, data: salvaged, mode },
  ]);
  return report;
}

/**
 * The kept lines Reasonix would send: a tool result only in the run of tool messages right after
 * the assistant message that made its call. Any other (its call's line left out, or never there)
 * Reasonix leaves out of the request without a word (measured with 1.38.11:
 * test/provider-request-matches-reasonix), so salvage leaves it out, and says so.
 */
function keptResults<T extends { line: number; value: Record<string, unknown> | null }>(
  kept: readonly T[],
  dropped: DroppedLine[],
): T[] {
  let calls: Set<string> | undefined;
  return kept.filter(({ line, value }) => {
    if (value?.role !== 'tool') {
      const made =
        value?.role === 'assistant' && Array.isArray(value.tool_calls) ? (value.tool_calls as { id?: unknown }[]) : [];
      calls = new Set(made.map((call) => (typeof call?.id === 'string' ? call.id : '')));
      return true;
    }
    if (calls?.has(typeof value.tool_call_id === 'string' ? value.tool_call_id : '')) return true;
    dropped.push({
      line,
      reason: `line ${line}: a tool result whose call is not in the assistant message just before it, which Reasonix leaves out of what it sends the model`,
    });
    return false;
  });
}

/**
 * `<dir>/<id>-salvaged.jsonl`, or the first `-salvaged-N` whose transcript and meta are both free;
 * or one holding exactly what this salvage writes (a second run of the same salvage): `already`.
 */
async function salvagePath(
  dir: string,
  id: string,
  text: string,
  metaText: (id: string) => string | undefined,
): Promise<{ path: string; already: boolean }> {
  for (let n = 1; ; n += 1) {
    // Cut so that Reasonix can resume it: a longer name leaves no room for its sidecars' names.
    const candidate = join(dir, `${stemWithin(id, `-salvaged${n === 1 ? '' : `-${n}`}`)}.jsonl`);
    const ownMeta = metaText(branchIdOf(candidate));
    const [transcript, meta] = await Promise.all([
      textIfSized(candidate, text),
      textIfSized(`${candidate}.meta`, ownMeta),
    ]);
    if (transcript === undefined && meta === undefined && !(await taken(candidate)))
      return { path: candidate, already: false };
    if (transcript === text && meta === ownMeta) return { path: candidate, already: true };
    // Half of this salvage's own pair (a run killed between its two renames): the name is this salvage's to finish.
    if (
      (transcript === text && meta === undefined && ownMeta !== undefined) ||
      (transcript === undefined && meta !== undefined && meta === ownMeta)
    )
      return { path: candidate, already: false };
  }
}

/**
 * The text of `file` when it is a regular file of `expected`'s length (the only text it is compared
 * with), opened without waiting; undefined when nothing is there; null for anything else (another
 * file, a FIFO, a device, one that cannot be read): a planted file is never waited on or read whole.
 */
async function textIfSized(file: string, expected: string | undefined): Promise<string | undefined | null> {
  const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch((error: unknown) =>
    isSystemError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR') ? undefined : null,
  );
  if (!handle) return handle;
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || expected === undefined || stats.size !== Buffer.byteLength(expected)) return null;
    return await handle.readFile('utf8');
  } catch {
    // Unreadable: not this salvage's own file, so the name is not free.
    return null;
  } finally {
    await handle.close();
  }
}

/** Something stands at the path (a link to nothing, a folder): the name is not free. */
async function taken(path: string): Promise<boolean> {
  return Promise.all(
    [path, `${path}.meta`].map((file) =>
      lstat(file).then(
        () => true,
        () => false,
      ),
    ),
  ).then((found) => found.includes(true));
}

const READ_CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * The transcript's lines, each as its bytes without the newline, read a chunk at a time from a
 * regular file only (a FIFO or /dev/zero is refused before a byte is read); a line longer than
 * rxstore reads a message (`MAX_TRANSCRIPT_MESSAGE_BYTES`) is given without its bytes, and never held.
 */
async function* linesOf(file: string): AsyncGenerator<{ line: number; bytes: Buffer | undefined }> {
  const { handle } = await openRegularFile(
    file,
    () => new NotRegularFileError('not a regular file: a transcript is read from a file only', { file }),
  );
  try {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let tooLong = false;
    let line = 1;
    for (;;) {
      const { bytesRead } = await onFileSystem(handle.read(buffer, 0, buffer.length, null), file);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
        const ends = !tooLong && pendingBytes + end - start <= MAX_TRANSCRIPT_MESSAGE_BYTES;
        yield { line, bytes: ends ? Buffer.concat([...pending, chunk.subarray(start, end)]) : undefined };
        pending = [];
        pendingBytes = 0;
        tooLong = false;
        line += 1;
        start = end + 1;
      }
      if (tooLong) continue;
      pendingBytes += chunk.length - start;
      if (pendingBytes > MAX_TRANSCRIPT_MESSAGE_BYTES) {
        tooLong = true;
        pending = [];
      } else pending.push(Buffer.from(chunk.subarray(start)));
    }
    if (tooLong || pendingBytes > 0) yield { line, bytes: tooLong ? undefined : Buffer.concat(pending) };
  } finally {
    await handle.close();
  }
}

/** Whether a path names a JSONL transcript rather than a session directory. */
export function isTranscriptPath(path: string): boolean {
  return basename(path).endsWith('.jsonl');
}
