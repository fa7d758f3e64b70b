import { constants } from 'node:fs';
import { access, open, opendir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { OUTPUT_FILE_MODE, writeFileAtomic } from '../../fs/atomic-write.js';
import { AcceptedRecordsCursorSchema, olderRecordsCursor, type AcceptedRecordsCursor, type RecordsCursor } from '../../session/cursors/records-since.js';
import { firstIssue } from '../../session/reading/first-issue.js';
import { openLogSession, openSession } from '../../store/open-session.js';
import type { Output } from '../output.js';
import { resolveSessionArgument } from '../session-argument.js';
import { CursorMismatchError, fileSystemErrorOf, NotRegularFileError, onFileSystem, undefinedIfMissing, UsageError } from '../../errors/index.js';
import type { RootArgs } from '../root-options.js';
import { jsonOutput } from '../json-output.js';

/** What `rxstore cat` is run with: the options cat.ts declares, as yargs gives them. */
export interface CatArgs extends RootArgs {
  session: string;
  records: boolean;
  cursor?: string;
}

/** `rxstore cat`, run: the command's options are in cat.ts. */
export async function runCat(args: CatArgs, output: Output, setExit: (code: number) => void): Promise<void> {
  if (args.cursor !== undefined) {
    // A cursor keeps a place in the records: without --records it would print what was not asked for.
    if (!args.records) throw new UsageError('--cursor needs --records (a cursor keeps the place in the records)');
    await catSince(await resolveSessionArgument(args.session, args), resolve(args.cursor), output, args.cursor);
    setExit(0);
    return;
  }
  const session = await openSession(await resolveSessionArgument(args.session, args));
  const lines = args.records ? session.records() : session.personView();
  for await (const line of lines) output.out(`${jsonOutput(line)}\n`);
  setExit(0);
}

/**
 * The changes to the records committed since the cursor kept in `cursorFile` (records by key,
 * removed records, and a session line when the title or workspace changes), then the cursor after
 * the last batch read, written atomically: when the log is damaged past it, what precedes the
 * damage is printed and kept, and the error still ends the command.
 */
async function catSince(sessionPath: string, cursorFile: string, output: Output, shownCursor = cursorFile): Promise<void> {
  const session = await openLogSession(sessionPath);
  // A folder that cannot take the cursor is said before a record is printed: printed, then not kept, every
  // record would come again on the next run.
  // (A folder that is a file is said to be not a directory, as opening it as one says.)
  const folder = dirname(cursorFile);
  await onFileSystem(opendir(folder).then((dir) => dir.close()), folder);
  await onFileSystem(access(folder, constants.W_OK | constants.X_OK), folder);
  const text = await readCursorFile(cursorFile, shownCursor);
  const saved = text === undefined ? undefined : parseCursorFile(text, cursorFile);
  let last: RecordsCursor | undefined;
  try {
    // The cursor after the last batch read, even one that changed nothing: the next run starts there.
    for await (const piece of session.recordsSince(saved, { cursorAtEnd: true })) {
      // The session's title and workspace when they change: a line of its own, with no key (records keep theirs).
      if (piece.session) output.out(`${jsonOutput({ type: 'session', sessionId: session.id, ...piece.session })}\n`);
      for (const record of piece.records) output.out(`${jsonOutput(record)}\n`);
      last = piece.cursor;
    }
  } catch (error) {
    // The cursor in the file does not fit this session's log: say which file to remove to start over.
    if (error instanceof CursorMismatchError && !error.message.includes(cursorFile)) {
      throw new CursorMismatchError(`${error.message.replace(/; read the session again from the start$/, '')}; remove ${cursorFile} to read the session from the start`, error.data);
    }
    throw error;
  } finally {
    if (last) await writeFileAtomic(cursorFile, `${JSON.stringify(last)}\n`, { mode: OUTPUT_FILE_MODE });
  }
}

/** A cursor is some 50 KB at most (records-since.ts): a file far larger is no cursor, and is not read whole. */
const CURSOR_MAX_BYTES = 1024 * 1024;

/**
 * The text of the cursor file, or undefined when there is none yet. Only a regular file is read,
 * opened without waiting (a FIFO there must not hang the command, a device must not be read for
 * ever), and only up to the size a cursor can have; anything else is refused, naming `shown`.
 */
async function readCursorFile(path: string, shown: string): Promise<string | undefined> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch((error: unknown) => {
    // No cursor file yet: everything is new. Any other system error is the file's, in words.
    return undefinedIfMissing(error, shown);
  });
  if (!handle) return undefined;
  try {
    const stats = await handle.stat().catch((error: unknown) => {
      throw fileSystemErrorOf(error, shown);
    });
    if (!stats.isFile()) throw new NotRegularFileError(`${shown}: not a regular file, so it cannot be a cursor; name a file rxstore keeps the cursor in`, { file: shown });
    if (stats.size > CURSOR_MAX_BYTES) {
      throw new CursorMismatchError(`${shown}: not a cursor rxstore wrote (${stats.size} bytes, a cursor is at most ${CURSOR_MAX_BYTES}); remove it to read the session from the start`, { file: shown });
    }
    const bytes = Buffer.alloc(CURSOR_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, length).catch((error: unknown) => {
        throw fileSystemErrorOf(error, shown);
      });
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > CURSOR_MAX_BYTES) throw new CursorMismatchError(`${shown}: not a cursor rxstore wrote (more than ${CURSOR_MAX_BYTES} bytes); remove it to read the session from the start`, { file: shown });
    }
    return bytes.subarray(0, length).toString('utf8');
  } finally {
    await handle.close();
  }
}

function parseCursorFile(text: string, file: string): AcceptedRecordsCursor {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's SyntaxError, its only error.
    throw new CursorMismatchError(`not a cursor rxstore wrote (not JSON); remove it to read the session from the start`, { file });
  }
  // Checked here too, not only by recordsSince, so that the refusal names the file it came from.
  const parsed = AcceptedRecordsCursorSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const older = olderRecordsCursor(json);
  if (older) throw new CursorMismatchError(`${older}; remove ${file} to read the session from the start, and replace what was indexed of it`, { file });
  throw new CursorMismatchError(`not a cursor rxstore wrote (${firstIssue(parsed.error)}); remove it to read the session from the start`, { file });
}
