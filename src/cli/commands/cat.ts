import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { RecordsCursorSchema, type RecordsCursor } from '../../session/cursors/records-since.js';
import { firstIssue } from '../../session/reading/first-issue.js';
import { openLogSession, openSession } from '../../store/open-session.js';
import { epilogue } from '../help-text.js';
import type { Output } from '../output.js';
import type { RootArgs } from '../root-options.js';
import { resolveSessionArgument, withSessionArgument } from '../session-argument.js';
import { CursorMismatchError, undefinedIfMissing, UsageError } from '../../errors/index.js';

interface CatArgs extends RootArgs {
  session: string;
  records: boolean;
  cursor?: string;
}

export function catCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'cat <session>',
    describe: "Print a session's person's view, or its index records, as JSONL",
    builder: (yargs: Argv) =>
      withSessionArgument(yargs)
        .option('records', { type: 'boolean', default: false, describe: 'print indexer records: messages, shell commands, files touched' })
        .option('cursor', {
          type: 'string',
          requiresArg: true,
          describe: 'with --records: print only what was committed since the cursor kept in this file (everything when it does not exist), then replace the file with the cursor after it',
        })
        .example('$0 cat 15350df4', 'what a person reads, one JSON message a line')
        .example('$0 cat 15350df4 --records | jq -r "select(.type == \\"command\\") | .command"', 'the shell commands the session ran')
        .example('$0 cat ~/.reasonix/projects/-home-me-app/sessions/old.jsonl', 'a JSONL transcript')
        .example('$0 cat 15350df4 --records --cursor 15350df4.cursor >> index.jsonl', 'only the records committed since the last run')
        .epilogue(epilogue()),
    handler: async (args: CatArgs) => {
      if (args.cursor !== undefined) {
        // A cursor keeps a place in the records: without --records it would print what was not asked for.
        if (!args.records) throw new UsageError('--cursor needs --records (a cursor keeps the place in the records)');
        await catSince(await resolveSessionArgument(args.session, args), resolve(args.cursor), output);
        setExit(0);
        return;
      }
      const session = await openSession(await resolveSessionArgument(args.session, args));
      const lines = args.records ? session.records() : session.personView();
      for await (const line of lines) output.out(`${JSON.stringify(line)}\n`);
      setExit(0);
    },
  };
}

/**
 * The records committed since the cursor kept in `cursorFile`, then the cursor after the last
 * batch printed, written atomically: when the log is damaged past it, what precedes the damage
 * is printed and kept, and the error still ends the command.
 */
async function catSince(sessionPath: string, cursorFile: string, output: Output): Promise<void> {
  const session = await openLogSession(sessionPath);
  const saved = await readFile(cursorFile, 'utf8').then(
    (text) => parseCursorFile(text, cursorFile),
    // No cursor file yet: everything is new. Any other system error is the file's, in words.
    (error: unknown) => undefinedIfMissing(error, cursorFile),
  );
  let last: RecordsCursor | undefined;
  try {
    for await (const piece of session.recordsSince(saved)) {
      for (const record of piece.records) output.out(`${JSON.stringify(record)}\n`);
      last = piece.cursor;
    }
  } finally {
    if (last) await writeFileAtomic(cursorFile, `${JSON.stringify(last)}\n`);
  }
}

function parseCursorFile(text: string, file: string): RecordsCursor {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's SyntaxError, its only error.
    throw new CursorMismatchError(`not a cursor rxstore wrote (not JSON); remove it to read the session from the start`, { file });
  }
  // Checked here too, not only by recordsSince, so that the refusal names the file it came from.
  const parsed = RecordsCursorSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  throw new CursorMismatchError(`not a cursor rxstore wrote (${firstIssue(parsed.error)}); remove it to read the session from the start`, { file });
}
