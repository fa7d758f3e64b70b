import { printable } from '../printable.js';
import { jsonOutput } from '../json-output.js';
import type { Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { FileSystemError, isSystemError, NotASessionError, RxError, systemErrorInWords, UsageError, type RxErrorCode } from '../../errors/index.js';
import { checkExistingFolder, checkFolder } from '../../fs/path-kind.js';
import { migrateJsonlToV4, type MigrationReport } from '../../migrate/jsonl-to-v4.js';
import { resumeCommand, resumeWithRoot, type PinnedRoot } from '../../migrate/resume-command.js';
import { unmigratedTranscripts } from '../../migrate/unmigrated-transcripts.js';
import { expandDirValue } from '../../store/roots/expand-dir-value.js';
import { isTranscriptName, listTranscripts } from '../../store/jsonl/jsonl-names.js';
import { machineRoots } from '../../store/roots/machine-roots.js';
import type { Platform } from '../../store/roots/platform.js';
import type { RootInputs } from '../../store/roots/roots.js';
import { goWorkingDirectory } from '../../store/roots/working-directory.js';
import { quote } from '../../store/resume/shell-command.js';
import type { Output } from '../output.js';
import { Progress } from '../progress.js';
import type { RootArgs } from '../root-options.js';
import { counted } from '../plural.js';
import { resumeAsWhereSays } from '../resume-as-where-says.js';
import type { ResumeContext } from '../../index.js';

/** What `rxstore migrate` is run with: the options migrate.ts declares, as yargs gives them. */
export interface MigrateArgs extends RootArgs {
  path?: string;
  all: boolean;
  to?: string;
  dryRun: boolean;
  json: boolean;
  concurrency: string;
}

interface Failure {
  code: RxErrorCode;
  message: string;
  /** The system's error code (`EACCES`, …) of an RX_FILE_SYSTEM failure. */
  errno?: string;
  file?: string;
  line?: number;
}

/** What became of one transcript; `resume` is the command that opens its session, as printed. */
type Outcome = { source: string; report?: MigrationReport & { resume: string | null }; error?: Failure };

/** Where the sessions go and how the printed commands reach them. */
interface Destination {
  stateRoot: string | undefined;
  cwd: string;
  platform: Platform;
  pinned: PinnedRoot | undefined;
  /** What `rxstore where`, run here, judges a written session's resume command by. */
  where: ResumeContext;
  /** The store given with --to, if one was. */
  to: string | undefined;
}

/** `rxstore migrate jsonl-to-v4`, run: the command's options are in migrate.ts. */
export async function runMigrateJsonlToV4(args: MigrateArgs, output: Output, setExit: (code: number) => void, isTty: () => boolean): Promise<void> {
  const concurrency = positiveInteger(args.concurrency, '--concurrency');
  if (args.all === (args.path !== undefined)) throw new UsageError('name a transcript or a directory, or give --all');
  // An empty name names nothing, as it does for every command that takes a session (not the current folder).
  if (args.path?.trim() === '') throw new UsageError('name a transcript or a directory, or give --all');
  const cwd = resolve(args.cwd ?? goWorkingDirectory());
  // The folder the printed resume command runs from, and whose store a transcript of no workspace goes into: it must be there.
  if (args.cwd !== undefined) await checkExistingFolder(cwd, args.cwd);
  const { inputs, roots } = await machineRoots({ ...args, cwd });
  const stateRoot = roots.reasonixStateRoot;
  if (stateRoot === undefined && args.to === undefined) {
    throw new UsageError('Reasonix has no state root here (no REASONIX_HOME and no home directory): give --home or --state-home, or --to');
  }
  // Said once, before any transcript: a file named as the store is no place for any of them.
  if (args.to !== undefined) await checkFolder(resolve(args.to), args.to);
  const where = { platform: inputs.platform, cwd: resolve('.'), reasonixStateRoot: stateRoot, pinned: roots.pinned };
  const destination: Destination = { stateRoot, cwd, platform: inputs.platform, pinned: pinnedRoot(args, inputs, stateRoot), where, to: args.to };
  const { transcripts, special } = args.all
    ? { transcripts: await unmigratedTranscripts(roots.roots, inputs.platform), special: [] }
    : await transcriptsAt(resolve(args.path!));
  const outcomes = await migrateAll(transcripts, special, args, destination, concurrency, output, isTty() && !args.json);
  const failed = outcomes.filter((outcome) => outcome.error);
  if (args.json) output.out(`${jsonOutput(outcomes, 2)}\n`);
  else {
    const count = (action: string) => outcomes.filter((outcome) => outcome.report?.action === action).length;
    output.out(
      `${counted(outcomes.length, 'transcript')}: ${count('migrated')} migrated, ${count('would-migrate')} would be migrated, ${count('exists')} already migrated, ${failed.length} failed\n`,
    );
  }
  setExit(failed.length > 0 ? 1 : 0);
}

function positiveInteger(value: string, option: string): number {
  if (!/^\s*[1-9]\d*\s*$/.test(String(value))) throw new UsageError(`${option} must be a positive integer, not ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * The variable a printed command needs for Reasonix to use the same state root: the one that set
 * it, from an option or the environment (docs/format.md §1.1). None when it is the default.
 */
function pinnedRoot(args: MigrateArgs, inputs: RootInputs, stateRoot: string | undefined): PinnedRoot | undefined {
  if (stateRoot === undefined) return undefined;
  if (args.stateHome !== undefined || expandDirValue(inputs.env.REASONIX_STATE_HOME, inputs)) return { name: 'REASONIX_STATE_HOME', value: stateRoot };
  if (args.home !== undefined || expandDirValue(inputs.env.REASONIX_HOME, inputs)) return { name: 'REASONIX_HOME', value: stateRoot };
  return undefined;
}

/**
 * The transcripts a path names, and the names in a directory that look like transcripts but are
 * not regular files; anything but a regular `.jsonl` file or a directory is refused before a byte is read.
 */
async function transcriptsAt(path: string): Promise<{ transcripts: string[]; special: Outcome[] }> {
  const stats = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new NotASessionError(`${path}: ${systemErrorInWords(error)}`, { file: path });
  });
  if (stats.isDirectory()) {
    const transcripts = await listTranscripts(path);
    const special = (await readdir(path, { withFileTypes: true }))
      .filter((entry) => isTranscriptName(entry.name) && (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()))
      .map((entry): Outcome => {
        const source = join(path, entry.name);
        return { source, error: { code: 'RX_NOT_REGULAR_FILE', message: `${fileKind(entry)}, not a regular file: a transcript is a regular file`, file: source } };
      });
    if (transcripts.length + special.length === 0) throw new NotASessionError(`${path}: no JSONL transcripts in this directory`, { file: path });
    return { transcripts, special };
  }
  if (!stats.isFile()) throw new NotASessionError(`${path}: ${fileKind(stats)}, not a regular file: a transcript is a regular .jsonl file`, { file: path });
  if (!path.endsWith('.jsonl')) throw new NotASessionError(`${path}: not a .jsonl transcript`, { file: path });
  return { transcripts: [path], special: [] };
}

function fileKind(stats: Pick<Stats, 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : 'a special file';
}

/**
 * Migrates every transcript, a few at once; one failure never stops the rest. On a terminal a
 * progress bar, then a line per migration and per failure; in a pipe a line per transcript as it
 * is done.
 */
async function migrateAll(
  transcripts: string[],
  refused: Outcome[],
  args: MigrateArgs,
  destination: Destination,
  concurrency: number,
  output: Output,
  tty: boolean,
): Promise<Outcome[]> {
  const progress = new Progress(output, transcripts.length + refused.length, tty);
  const outcomes: Outcome[] = new Array(transcripts.length);
  for (const outcome of refused) if (!args.json) progress.step(outcomeLine(outcome, destination));
  let next = 0;
  const worker = async () => {
    while (next < transcripts.length) {
      const index = next++;
      const source = transcripts[index]!;
      outcomes[index] = await migrateOne(source, args, destination);
      if (!args.json) progress.step(outcomeLine(outcomes[index], destination));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, transcripts.length) }, worker));
  const all = [...outcomes, ...refused].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  if (tty) {
    const lines = [...all.filter((outcome) => !outcome.error), ...all.filter((outcome) => outcome.error)].map((outcome) => outcomeLine(outcome, destination));
    output.out(lines.map((line) => `${line}\n`).join(''));
  }
  return all;
}

async function migrateOne(source: string, args: MigrateArgs, destination: Destination): Promise<Outcome> {
  try {
    const report = await migrateJsonlToV4(source, {
      to: args.to,
      dryRun: args.dryRun,
      cwd: destination.cwd,
      platform: destination.platform,
      ...(destination.stateRoot !== undefined ? { stateRoot: destination.stateRoot } : {}),
    });
    return { source, report: { ...report, resume: await resumeText(report, destination) } };
  } catch (error) {
    // The system's error, coded (RX_FILE_SYSTEM): the words as the message, the path as the file, once.
    if (isSystemError(error)) return { source, error: { code: 'RX_FILE_SYSTEM', errno: error.code!, message: systemErrorInWords(error), ...(error.path ? { file: shownPath(error.path) } : {}) } };
    if (error instanceof FileSystemError && error.data.file !== undefined && error.message.startsWith(`${error.data.file}: `)) {
      return { source, error: { code: error.code, message: error.message.slice(error.data.file.length + 2), ...error.data, file: shownPath(error.data.file) } };
    }
    if (error instanceof RxError) return { source, error: { code: error.code, message: error.message, ...error.data } };
    throw error;
  }
}

/**
 * The command that resumes the session, as `rxstore where` prints it from here (the one rule),
 * told the folder it was migrated for (its own workspace, else --cwd); for a session not written (a dry run), from that folder;
 * null when no folder is known to run it from.
 */
async function resumeText(report: MigrationReport, destination: Destination): Promise<string | null> {
  // A --to store is said as such (its handling is --to's): where's rule judges sessions in Reasonix's stores.
  const written = (report.action === 'migrated' || report.action === 'exists') && !destination.to
    ? await resumeAsWhereSays(report.targetDir, report.targetId, { ...destination.where, workspace: report.workspace ?? destination.cwd })
    : undefined;
  if (written !== undefined) return written;
  return report.workspace === null ? null : resumeCommand(report.targetId, report.workspace, destination.platform, destination.pinned);
}

/**
 * One line per transcript: what was done, the new session's id and directory and how to resume
 * it, then a line per warning; or where and why it failed. Control characters (in a file name, say) are shown escaped, so
 * they cannot move the cursor or break the line.
 */
function outcomeLine(outcome: Outcome, destination: Destination): string {
  // Each warning on a line of its own under the outcome: joined, they made one line of many hundred characters.
  const warnings = outcome.report?.warnings.map((warning) => `\n  warning: ${printable(warning)}`) ?? [];
  return `${printable(describeOutcome(outcome, destination))}${warnings.join('')}`;
}

function describeOutcome(outcome: Outcome, destination: Destination): string {
  const { report, error } = outcome;
  if (error) {
    // A line number leads the message of a transcript error; it is already in the place.
    // A transcript Reasonix stops reading: salvage keeps every line that is a message on its own.
    const salvage = error.code === 'RX_JSONL_LINE' ? `; rxstore salvage ${quote(outcome.source, destination.platform)} keeps the lines that are messages` : '';
    if (error.line !== undefined) return `failed ${error.file ?? outcome.source}:${error.line}: ${error.message.replace(/^line \d+: /, '')} (${error.code})${salvage}`;
    const about = error.file !== undefined && error.file !== outcome.source ? `${error.file}: ` : '';
    return `failed ${outcome.source}: ${about}${error.message} (${error.code})`;
  }
  const { action, targetId, targetDir, slug } = report!;
  const resume =
    report!.resume ??
    (slug === null
      ? 'none: not a store `reasonix --resume` searches (<state root>/projects/<slug>/sessions-v4)'
      : `${resumeWithRoot(targetId, destination.platform, destination.pinned)}, from the folder whose slug is ${slug}`);
  return `${action} ${outcome.source}: ${targetId} -> ${targetDir}; resume: ${resume}`;
}

/** A staging directory is never a name to show: the store it sits in is. */
function shownPath(path: string): string {
  return /^\.[^/\\]+\.tmp-/.test(basename(path)) ? dirname(path) : path;
}
