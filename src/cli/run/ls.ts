import stringWidth from 'string-width';
import { jsonOutput } from '../json-output.js';
import { resolve } from 'node:path';
import { exitCodeOfStatus } from '../exit-code-of-status.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { formatLs } from '../format-ls.js';
import type { Output } from '../output.js';
import {
  FileSystemError,
  RxError,
  printable,
  tuneV8ForReading,
  type ListedSession,
  listSessions,
  machineRoots,
  SummaryCache,
  type ListedStore,
} from '../../index.js';
import { errorLines, warningLine } from '../error-line.js';
import { Progress } from '../progress.js';
import type { RootArgs } from '../root-options.js';

/** What `rxstore ls` is run with: the options ls.ts declares, as yargs gives them. */
export interface LsArgs extends RootArgs {
  json: boolean;
  verify: boolean;
  cache: boolean;
  utc: boolean;
  workspace?: string;
  store?: ListedStore[];
}

/** `rxstore ls`, run: the command's options are in ls.ts. */
export async function runLs(args: LsArgs, output: Output, setExit: (code: ExitCode) => void): Promise<void> {
  const { inputs, roots } = await machineRoots(args);
  const cache = args.cache ? await SummaryCache.open() : undefined;
  // Reading every log whole takes a while: a person at a terminal sees how far it got.
  let bar: Progress | undefined;
  const onProgress = (_done: number, total: number) => (bar ??= new Progress(output, total, true)).step('');
  const listing = await listSessions(roots.roots, {
    platform: inputs.platform,
    verify: args.verify,
    ...(cache ? { cache } : {}),
    beforeReading: tuneV8ForReading,
    ...(args.verify && output.columns !== undefined ? { onProgress } : {}),
    ...(args.workspace !== undefined ? { workspace: resolve(args.workspace) } : {}),
    ...(args.store ? { stores: args.store } : {}),
  });
  for (const warning of listing.warnings) output.err(warningLine(warning));
  const sessions: ListedSession[] = [];
  for await (const session of listing.sessions) sessions.push(session);
  // One line for each cache file that could not be saved.
  await cache?.save().catch((error: unknown) => {
    for (const one of error instanceof AggregateError ? error.errors : [error])
      output.err(
        warningLine(
          `${inWords(one)}; the summary cache was not saved whole: the next ls reads again the logs it lacks`,
        ),
      );
  });
  for (const session of sessions) {
    if (session.status === 'unreadable')
      output.err(warningLine(`${session.problem ?? session.path}; listed as unreadable`));
  }
  if (args.json) output.out(`${jsonOutput(sessions, 2)}\n`);
  else if (sessions.length > 0) {
    output.out(formatLs(sessions, { columns: output.columns, utc: args.utc, homeDir: inputs.homeDir }));
    // On a terminal, a person is told what was not read whole now; a pipe gets the rows alone (--json has `checked`).
    if (output.columns !== undefined) {
      const told = checkedLine(sessions, output.columns);
      if (told) output.err(`${told}\n`);
      for (const command of new Set(sessions.map((session) => session.relocate).filter((command) => command !== null)))
        output.err(`a workspace marked (gone) was moved? ${printable(command)}\n`);
    }
  }
  if (sessions.length === 0) {
    output.err(errorLines(await listing.nothingFound()));
    setExit(EXIT.usage);
    return;
  }
  // A session rxstore could not read is a failure whether or not the rest were verified; the others are listed all the same.
  const refused = sessions.some(
    (session) => session.status === 'unreadable' || (args.verify && exitCodeOfStatus(session.status) !== EXIT.done),
  );
  setExit(refused ? EXIT.refused : EXIT.done);
}

/**
 * How the rows were checked, when not every one was read whole now; fitted to a terminal of
 * `columns`: said in full, else in short, else the short form broken between words.
 */
function checkedLine(sessions: readonly ListedSession[], columns: number): string | undefined {
  const count = (how: ListedSession['checked']) => sessions.filter((session) => session.checked === how).length;
  const [now, appended, cached, no] = [count('now'), count('appended'), count('cache'), count('no')];
  if (now === sessions.length) return undefined;
  const fromCache = appended + cached > 0;
  const said = (words: { now: string; appended: string; cached: string; no: string; verify: string }) =>
    [
      `${now} ${words.now}`,
      appended > 0 ? `${appended} ${words.appended}` : undefined,
      cached > 0 ? `${cached} ${words.cached}` : undefined,
      no > 0 ? `${no} ${words.no}` : undefined,
    ]
      .filter((part) => part !== undefined)
      .join(', ') + (fromCache ? words.verify : '');
  const full = said({
    now: 'read now',
    appended: 'from the summary cache and what was appended since, read now',
    cached: 'unchanged since the summary cache read them',
    no: 'not read at all',
    verify: ' (--verify reads every log)',
  });
  if (stringWidth(full) <= columns) return full;
  const short = said({
    now: 'read',
    appended: 'cached + appended',
    cached: 'cached',
    no: 'not read',
    verify: '; --verify reads all',
  });
  return wrapWords(short, columns);
}

/** `text` broken between words into lines of at most `columns` cells (a longer word is a line of its own). */
function wrapWords(text: string, columns: number): string {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && stringWidth(last) + 1 + stringWidth(word) <= columns)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines.join('\n');
}

/** A failure as a person reads it: a system error's errno in words, with its path; else its message. */
function inWords(error: unknown): string {
  const coded = FileSystemError.from(error);
  return coded instanceof RxError ? `${coded.code}: ${coded.message}` : String(coded);
}
