import { EXIT, type ExitCode } from '../exit-codes.js';
import { jsonOutput } from '../json-output.js';
import type { Output } from '../output.js';
import {
  printable,
  locateSession,
  type SessionWhereabouts,
  machineRoots,
  UsageError,
  SessionNotFoundError,
  isPath,
  type Platform,
  shellCommand,
  goWorkingDirectory,
} from '../../index.js';
import { pathNotAnId } from '../usage-words.js';
import type { RootArgs } from '../root-options.js';

/** What `rxstore where` is run with: the options where.ts declares, as yargs gives them. */
export interface WhereArgs extends RootArgs {
  id: string;
  json: boolean;
}

/** `rxstore where`, run: the command's options are in where.ts. */
export async function runWhere(args: WhereArgs, output: Output, setExit: (code: ExitCode) => void): Promise<void> {
  if (args.id.trim() === '') throw new UsageError('name a session id, or the start of one');
  const { inputs, roots, resume } = await machineRoots(args);
  const located = await locateSession(roots.roots, args.id, resume).catch(async (error: unknown) => {
    // A word that matches no id but is a path (a slash in it, or there on disk) was meant as one: say where paths are taken.
    if (error instanceof SessionNotFoundError && (await isPath(args.id)))
      throw new UsageError(pathNotAnId('where', args.id));
    throw error;
  });
  // Asked about another folder than this one: the command to resume goes there first.
  const elsewhere = args.cwd !== undefined && inputs.cwd !== goWorkingDirectory() ? inputs.platform : undefined;
  output.out(
    args.json
      ? `${jsonOutput(located, 2)}\n`
      : located.map((session) => formatWhereabouts(session, inputs.cwd, elsewhere)).join('\n'),
  );
  setExit(EXIT.done);
}

/** One session's copies and verdicts, text from the session escaped (commands are shell-quoted already). */
function formatWhereabouts(session: SessionWhereabouts, cwd: string, elsewhere: Platform | undefined): string {
  const p = printable;
  const lines = [`${p(session.id)}${session.title ? `  ${p(session.title)}` : ''}`];
  const workspace = session.workspace
    ? `${p(session.workspace)} (from ${session.workspaceFrom})`
    : session.slug
      ? `unknown; it sits under slug ${p(session.slug)}`
      : 'none (a global store)';
  lines.push(`  workspace  ${workspace}`);
  if (session.relocate)
    lines.push(
      `  moved?     the folder no longer exists; to resume from where the project is now: ${p(session.relocate)}`,
    );
  if (session.parent) lines.push(`  fork of    ${p(session.parent.id)}  ${p(session.parent.path)}`);
  lines.push('  copies');
  for (const copy of session.copies) {
    lines.push(
      `    ${copy.store}${copy.scope === 'global' && copy.store === 'sessions-v4' ? ' (global)' : ''}  ${copy.status}  ${p(copy.path)}`,
    );
    lines.push(
      `      \`reasonix --resume\` from ${p(cwd)}: ${copy.resume.reason === 'resumes' ? 'opens it' : copy.resume.reason === 'resumes-past-damage' ? 'opens it from its recovery checkpoint, past the damage' : copy.resume.resumes ? 'imports it into a new session' : copy.resume.reason === 'unreadable' && copy.resume.command ? 'not checked (unreadable)' : `no (${copy.resume.reason})`} — ${p(copy.resume.explanation)}`,
    );
    // Opened is not gone on with: a copy whose next turn Reasonix refuses says so, in its words.
    if (copy.status === 'turn-refused' && copy.problem) lines.push(`      a new turn: refused — ${p(copy.problem)}`);
  }
  const { resume } = session;
  if (resume.resumes)
    lines.push(
      elsewhere
        ? `  resume from ${p(cwd)}: ${p(shellCommand(resume.command!, elsewhere, { from: cwd }))}`
        : `  resume from here: ${p(resume.command!)}`,
    );
  // The folder the command would go to is gone: the session is brought to where the project is now first.
  else if (resume.command && session.relocate)
    lines.push(
      `  not from here: ${p(resume.explanation)}`,
      `  to resume: ${p(session.relocate)}, then \`reasonix --resume ${p(session.id)}\` from the new folder`,
    );
  // rxstore could not read it whole: the command that would resume it, untried.
  else if (resume.command && resume.reason === 'unreadable')
    lines.push(`  not checked: ${p(resume.explanation)}`, `  to try: ${p(resume.command)}`);
  else if (resume.command) lines.push(`  not from here: ${p(resume.explanation)}`, `  to resume: ${p(resume.command)}`);
  else lines.push(`  no command resumes it: ${p(resume.explanation)}`);
  return `${lines.join('\n')}\n`;
}
