import { constants } from 'node:fs';
import { access, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  CursorMismatchError,
  fileSystemErrorOf,
  NotRegularFileError,
  onFileSystem,
  undefinedIfMissing,
} from '../../errors/index.js';
import { OUTPUT_FILE_MODE, writeFileAtomic } from '../../fs/atomic-write.js';
import { checkFile, checkOutside, type ReadPaths } from '../../fs/path-kind.js';
import { firstIssue } from '../../codec/first-issue.js';
import {
  AcceptedRecordsCursorSchema,
  cursorOfAnotherKind,
  type AcceptedRecordsCursor,
  type RecordsCursor,
  type RecordsSince,
} from './records-since.js';

/** A cursor is within 80 KiB (records-since.ts): a file far larger is no cursor, and is not read whole. */
const CURSOR_MAX_BYTES = 1024 * 1024;

/** Where a records cursor is kept between runs, and how its refusals name it. */
export interface CursorFileOptions {
  /** The path as the caller was given it, named in refusals; the path itself by default. */
  shown?: string;
}

/**
 * The changes to the records committed since the cursor kept in `file` (every record when there is
 * no file yet), then the cursor after the last batch read, written back atomically — also when the
 * log is damaged past it or the caller stops early: what was given is kept, and the error still
 * ends the read. A folder that cannot take the file is refused before a record is given (given,
 * then not kept, every record would come again on the next run).
 */
export async function* recordsSinceFile(
  recordsSince: (
    cursor: AcceptedRecordsCursor | undefined,
    options: { cursorAtEnd: true },
  ) => AsyncIterable<RecordsSince>,
  file: string,
  reading: ReadPaths,
  options: CursorFileOptions = {},
): AsyncGenerator<RecordsSince> {
  const shown = options.shown ?? file;
  // A cursor is a regular file of its own, in a folder that is there, outside the session it follows.
  await checkFile(file, shown);
  await checkOutside(file, shown, 'file', reading);
  const folder = dirname(file);
  await onFileSystem(access(folder, constants.W_OK | constants.X_OK), folder);
  const text = await readCursorFile(file, shown);
  const saved = text === undefined ? undefined : parseCursorFile(text, file);
  let last: RecordsCursor | undefined;
  try {
    // The cursor after the last batch read, even one that changed nothing: the next run starts there.
    for await (const piece of recordsSince(saved, { cursorAtEnd: true })) {
      last = piece.cursor;
      yield piece;
    }
  } catch (error) {
    // The cursor in the file does not fit this session's log: say which file to remove to start over.
    if (error instanceof CursorMismatchError && !error.message.includes(file)) {
      throw new CursorMismatchError(
        `${error.message.replace(/; read the session again from the start$/, '')}; remove ${file} to read the session from the start`,
        error.data,
      );
    }
    throw error;
  } finally {
    if (last) await writeFileAtomic(file, `${JSON.stringify(last)}\n`, { mode: OUTPUT_FILE_MODE });
  }
}

/**
 * The text of the cursor file, or undefined when there is none yet. Only a regular file is read,
 * opened without waiting (a FIFO there must not hang the read, a device must not be read for
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
    if (!stats.isFile())
      throw new NotRegularFileError(
        `${shown}: not a regular file, so it cannot be a cursor; name a file rxstore keeps the cursor in`,
        { file: shown },
      );
    if (stats.size > CURSOR_MAX_BYTES) {
      throw new CursorMismatchError(
        `${shown}: not a cursor rxstore wrote (${stats.size} bytes, a cursor is at most ${CURSOR_MAX_BYTES}); remove it to read the session from the start`,
        { file: shown },
      );
    }
    const bytes = Buffer.alloc(CURSOR_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, length).catch((error: unknown) => {
        throw fileSystemErrorOf(error, shown);
      });
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > CURSOR_MAX_BYTES)
        throw new CursorMismatchError(
          `${shown}: not a cursor rxstore wrote (more than ${CURSOR_MAX_BYTES} bytes); remove it to read the session from the start`,
          { file: shown },
        );
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
    throw new CursorMismatchError(
      `not a cursor rxstore wrote (not JSON); it is left as it is: name another file, or remove this one, to read the session from the start`,
      { file },
    );
  }
  // Checked here too, not only by recordsSince, so that the refusal names the file it came from.
  const parsed = AcceptedRecordsCursorSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const other = cursorOfAnotherKind(json);
  if (other)
    throw new CursorMismatchError(
      `${other}; remove ${file} to read the session from the start, and replace what was indexed of it`,
      { file },
    );
  throw new CursorMismatchError(
    `not a cursor rxstore wrote (${firstIssue(parsed.error)}); it is left as it is: name another file, or remove this one, to read the session from the start`,
    { file },
  );
}
