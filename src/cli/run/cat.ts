import { EXIT, type ExitCode } from '../exit-codes.js';
import { resolve } from 'node:path';
import { openLogSession, openSession, UsageError, resolveSession } from '../../index.js';
import { printPieces, type Output } from '../output.js';
import type { RootArgs } from '../root-options.js';
import { jsonOutput } from '../json-output.js';

/** What `rxstore cat` is run with: the options cat.ts declares, as yargs gives them. */
export interface CatArgs extends RootArgs {
  session: string;
  records: boolean;
  cursor?: string;
}

/** `rxstore cat`, run: the command's options are in cat.ts. */
export async function runCat(args: CatArgs, output: Output, setExit: (code: ExitCode) => void): Promise<void> {
  if (args.cursor !== undefined) {
    // A cursor keeps a place in the records: without --records it would print what was not asked for.
    if (!args.records) throw new UsageError('--cursor needs --records (a cursor keeps the place in the records)');
    await catSince(await resolveSession(args.session, args), resolve(args.cursor), output, args.cursor);
    setExit(EXIT.done);
    return;
  }
  const session = await openSession(await resolveSession(args.session, args));
  const lines = args.records ? session.records() : session.personView();
  await printPieces(jsonLines(lines), output);
  setExit(EXIT.done);
}

/** Each value as one line of JSON. */
async function* jsonLines(values: AsyncIterable<unknown>): AsyncGenerator<string> {
  for await (const value of values) yield `${jsonOutput(value)}\n`;
}

/**
 * The changes to the records committed since the cursor kept in `cursorFile` (records by key,
 * removed records, and a session line when the title or workspace changes); the library keeps the
 * cursor in the file: when the log is damaged past it, what precedes the damage is printed and
 * kept, and the error still ends the command.
 */
async function catSince(sessionPath: string, cursorFile: string, output: Output, shown: string): Promise<void> {
  const session = await openLogSession(sessionPath);
  async function* lines(): AsyncGenerator<unknown> {
    for await (const piece of session.recordsSinceFile(cursorFile, { shown })) {
      // The session's title and workspace when they change: a line of its own, with no key (records keep theirs).
      if (piece.session) yield { type: 'session', sessionId: session.id, ...piece.session };
      yield* piece.records;
    }
  }
  await printPieces(jsonLines(lines()), output);
}
