import { EXIT, type ExitCode } from '../exit-codes.js';
import { resolve } from 'node:path';
import {
  isPath,
  machineRoots,
  printable,
  search,
  tuneV8ForReading,
  type FoundHit,
  type SearchKind,
  SessionNotFoundError,
  shellCommand,
  UsageError,
  type Platform,
} from '../../index.js';
import { jsonOutput } from '../json-output.js';
import type { Output } from '../output.js';
import { Progress } from '../progress.js';
import { fitMarked, type MarkedPiece } from '../fit-marked.js';
import { cutEnd } from '../format-ls.js';
import type { RootArgs } from '../root-options.js';
import { pathNotAnId } from '../usage-words.js';
import { warningLine } from '../error-line.js';
import { timeOption } from '../time-option.js';

/** What `rxstore search` is run with: the options search.ts declares, as yargs gives them. */
export interface SearchArgs extends RootArgs {
  query?: (string | number)[];
  regex: boolean;
  kind?: string[];
  tool?: string;
  file?: string;
  workspace?: string;
  session?: string;
  since?: string;
  until?: string;
  limit: number;
  around?: number;
  json: boolean;
  index: boolean;
}

/** `rxstore search`, run: the command's options are in search.ts. */
export async function runSearch(
  args: SearchArgs,
  output: Output,
  setExit: (code: ExitCode) => void,
  showProgress: boolean,
): Promise<void> {
  const query = (args.query ?? []).map(String).join(' ');
  if (query.trim() === '' && args.file === undefined) throw new UsageError('give words to search for (or --file PATH)');
  if (!Number.isInteger(args.limit) || args.limit < 1) throw new UsageError('--limit takes a whole number above 0');
  if (args.around !== undefined && (!Number.isInteger(args.around) || args.around < 0))
    throw new UsageError('--around takes a whole number, 0 or more');
  // `--file` alone lists sessions, one line each: --limit counts sessions, so every touch is read.
  const sessionsOnly = query.trim() === '' && !args.json;
  const { inputs, roots } = await machineRoots(args);
  // A person at a terminal is told when --limit left hits out: one more is asked for, to know.
  const toldOfMore =
    !args.json && !sessionsOnly && output.columns !== undefined && args.limit < Number.MAX_SAFE_INTEGER;
  let progress: Progress | undefined;
  const hits: FoundHit[] = [];
  let found = 0;
  try {
    for await (const hit of search(query, {
      roots: roots.roots,
      platform: inputs.platform,
      regex: args.regex,
      kinds: args.kind as SearchKind[] | undefined,
      tool: args.tool,
      file: args.file,
      workspace: args.workspace === undefined ? undefined : resolve(args.workspace),
      session: args.session,
      since: timeOption('--since', args.since),
      until: timeOption('--until', args.until),
      limit: sessionsOnly ? undefined : toldOfMore ? args.limit + 1 : args.limit,
      around: args.around,
      index: args.index,
      // The terminal shows no message index: its sessions' transcripts are read only for --json and --around.
      messageIndex: args.json,
      // As ls: V8 is tuned for reading logs only when some are read (a warm search reads none).
      beforeReading: tuneV8ForReading,
      // A person at a terminal is told why nothing happens yet; nothing in a pipe.
      onWaiting: showProgress
        ? () => output.err('rxstore: another search is updating the index; waiting for it to finish\n')
        : undefined,
      // A bar on a terminal while a first build (or a large update) reads sessions; nothing in a pipe.
      onProgress: showProgress
        ? (_done, total) => {
            if (total < 20) return;
            progress ??= new Progress(output, total, true);
            progress.step('');
          }
        : undefined,
      // A session searched only up to damage is said, hit or not: what lies past it was not searched.
      onNotWhole: (part) =>
        output.err(
          'warning' in part
            ? warningLine(part.warning)
            : `rxstore: ${printable(part.path)}: searched up to damage: ${printable(part.damage)}\n`,
        ),
    })) {
      found += 1;
      if (args.json) output.out(`${jsonOutput(jsonHit(hit))}\n`);
      else hits.push(hit);
    }
  } catch (error) {
    // No session's id starts with a --session that is a path: it takes ids, which is what went wrong.
    if (error instanceof SessionNotFoundError && args.session !== undefined && (await isPath(args.session)))
      throw new UsageError(pathNotAnId('search --session', args.session));
    throw error;
  }
  // Nothing found for a --session that is a path: it takes ids, which is what went wrong.
  if (found === 0 && args.session !== undefined && (await isPath(args.session)))
    throw new UsageError(pathNotAnId('search --session', args.session));
  if (sessionsOnly && found > 0) output.out(formatTouches(hits, args.limit));
  else if (!args.json && found > 0)
    output.out(formatHits(hits.slice(0, args.limit), output.columns, rootFlagsOf(args), inputs.platform));
  if (toldOfMore && hits.length > args.limit)
    output.err(`rxstore: the ${args.limit} best hits are shown; --limit ${args.limit * 2} shows more\n`);
  // A pipe gets nothing, as from grep; a person at a terminal is told the search ran.
  if (found === 0 && !args.json && output.columns !== undefined)
    output.err(`nothing found for ${printable(query.trim() === '' ? `--file ${args.file}` : query)}\n`);
  // As grep: 0 when something was found, 1 when nothing was.
  setExit(found > 0 ? EXIT.done : EXIT.refused);
}

/** One hit as a JSON line: the fields \`cat\` and \`view\` name a message by, what matched, and where. */
function jsonHit(hit: FoundHit): Record<string, unknown> {
  return {
    sessionId: hit.sessionId,
    workspace: hit.workspace,
    store: hit.store,
    messageId: hit.messageId,
    index: hit.index,
    role: hit.role,
    kind: hit.kind,
    tool: hit.tool,
    exitCode: hit.exitCode,
    time: hit.time,
    score: hit.score,
    snippet: hit.snippet,
    matches: hit.matches,
    title: hit.title,
    path: hit.path,
    damage: hit.damage,
    ...(hit.around ? { around: hit.around } : {}),
  };
}

const BOLD_RED = '\u001b[1;31m';
const RESET = '\u001b[0m';

/**
 * The snippet with its matches marked: in colour on a terminal, fitted to its `columns` (cells
 * left after the indent) as `ls` fits its rows; between » and « in a pipe, whole.
 */
function highlighted(hit: FoundHit, columns: number | undefined): string {
  const [open, close] = columns !== undefined ? [BOLD_RED, RESET] : ['»', '«'];
  const pieces: MarkedPiece[] = [];
  let at = 0;
  for (const { start, end } of hit.matches) {
    pieces.push({ text: printable(hit.snippet.slice(at, start)), marked: false });
    pieces.push({ text: printable(hit.snippet.slice(start, end)), marked: true });
    at = end;
  }
  pieces.push({ text: printable(hit.snippet.slice(at)), marked: false });
  if (columns === undefined)
    return pieces.map((piece) => (piece.marked ? open + piece.text + close : piece.text)).join('');
  return fitMarked(pieces, Math.max(1, columns), open, close);
}

/** Hits grouped by session, sessions in the order of their best hit: title, workspace, id, each hit, and the commands to open it. */
function formatHits(
  hits: readonly FoundHit[],
  columns: number | undefined,
  rootFlags: string[],
  platform: Platform,
): string {
  const sessions = new Map<string, FoundHit[]>();
  for (const hit of hits) sessions.set(hit.path, [...(sessions.get(hit.path) ?? []), hit]);
  const blocks: string[] = [];
  for (const group of sessions.values()) {
    const first = group[0]!;
    const lines = [`${first.title ? printable(first.title) : '(untitled)'}  ${printable(first.sessionId)}`];
    lines.push(
      `  ${first.workspace ? printable(first.workspace) : '(no workspace)'}  ${first.store}${first.damage ? `  read up to damage: ${printable(first.damage)}` : ''}`,
    );
    for (const hit of group) {
      const what = `${hit.kind}${hit.tool ? ` ${printable(hit.tool)}` : ''}${hit.exitCode !== null && hit.kind === 'command' ? ` exit ${hit.exitCode}` : ''}`;
      lines.push(`  ${hit.time}  ${what}${hit.messageId ? `  #${printable(hit.messageId)}` : ''}`);
      lines.push(`    ${highlighted(hit, columns === undefined ? undefined : columns - 4)}`);
      for (const message of hit.around ?? []) {
        if (message.hit) continue;
        const line = `      [${message.index}] ${printable(message.role)}: ${printable(message.text.replace(/\s+/g, ' ').slice(0, 160))}`;
        lines.push(columns === undefined ? line : cutEnd(line, columns));
      }
    }
    // Commands that work as printed: the roots the search was pointed at go with them, and the page goes to a file.
    const id = first.sessionId;
    const command = (words: string[], after: string[] = []) =>
      printable(shellCommand(['rxstore', ...words, ...rootFlags, ...after], platform));
    lines.push(
      `  open: ${command(['view', id], ['--to', `${id.slice(0, 8)}.html`])}   resume: ${command(['where', id])}`,
    );
    blocks.push(lines.join('\n'));
  }
  return `${blocks.join('\n\n')}\n`;
}

/** The root options the search was given, as the commands it suggests take them (`--home`, `--state-home`). */
function rootFlagsOf(args: RootArgs): string[] {
  return [
    ...(args.home === undefined ? [] : ['--home', args.home]),
    ...(args.stateHome === undefined ? [] : ['--state-home', args.stateHome]),
  ];
}

/** `--file` with no query: the sessions that touched the file, one line each, most touches first. */
function formatTouches(hits: readonly FoundHit[], limit: number): string {
  const sessions = new Map<string, FoundHit[]>();
  for (const hit of hits) sessions.set(hit.path, [...(sessions.get(hit.path) ?? []), hit]);
  const lines: string[] = [];
  for (const group of [...sessions.values()].slice(0, limit)) {
    const first = group[0]!;
    const last = group.reduce((latest, hit) => (hit.time > latest ? hit.time : latest), first.time);
    const how = [...new Set(group.map((hit) => hit.tool ?? hit.kind))].join(',');
    const touches = `${group.length} ${group.length === 1 ? 'touch' : 'touches'} (${printable(how)})`;
    lines.push(
      `${last}  ${printable(first.sessionId)}  ${touches}  ${first.title ? printable(first.title) : '(untitled)'}  ${first.workspace ? printable(first.workspace) : '(no workspace)'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
