import { EXIT, type ExitCode } from '../exit-codes.js';
import { jsonOutput } from '../json-output.js';
import {
  migrateTranscripts,
  printable,
  shellCommand,
  UsageError,
  type MigrationRun,
  type TranscriptOutcome,
} from '../../index.js';
import type { Output } from '../output.js';
import { Progress } from '../progress.js';
import type { RootArgs } from '../root-options.js';
import { counted } from '../plural.js';

/** What `rxstore migrate` is run with: the options migrate.ts declares, as yargs gives them. */
export interface MigrateArgs extends RootArgs {
  path?: string;
  all: boolean;
  to?: string;
  dryRun: boolean;
  json: boolean;
  concurrency: string;
}

/** How a printed command reaches the sessions. */
type Destination = Pick<MigrationRun, 'platform' | 'pinned'>;

/**
 * `rxstore migrate jsonl-to-v4`, run: the command's options are in migrate.ts. On a terminal a
 * progress bar, then a line per migration and per failure; in a pipe a line per transcript as it
 * is done.
 */
export async function runMigrateJsonlToV4(
  args: MigrateArgs,
  output: Output,
  setExit: (code: ExitCode) => void,
  isTty: () => boolean,
): Promise<void> {
  const concurrency = positiveInteger(args.concurrency, '--concurrency');
  const tty = isTty() && !args.json;
  let progress: Progress | undefined;
  const { outcomes, ...destination } = await migrateTranscripts({
    home: args.home,
    stateHome: args.stateHome,
    cwd: args.cwd,
    path: args.path,
    all: args.all,
    to: args.to,
    dryRun: args.dryRun,
    concurrency,
    onOutcome: args.json
      ? undefined
      : (outcome, run) => {
          progress ??= new Progress(output, run.total, tty);
          progress.step(outcomeLine(outcome, run));
        },
  });
  if (tty) {
    const lines = [...outcomes.filter((outcome) => !outcome.error), ...outcomes.filter((outcome) => outcome.error)].map(
      (outcome) => outcomeLine(outcome, destination),
    );
    output.out(lines.map((line) => `${line}\n`).join(''));
  }
  const failed = outcomes.filter((outcome) => outcome.error);
  if (args.json) output.out(`${jsonOutput(outcomes, 2)}\n`);
  else {
    // A session published without its map entry is counted as failed, not migrated: its line says both.
    const count = (action: string) =>
      outcomes.filter((outcome) => !outcome.error && outcome.report?.action === action).length;
    output.out(
      `${counted(outcomes.length, 'transcript')}: ${count('migrated')} migrated, ${count('would-migrate')} would be migrated, ${count('exists')} already migrated, ${failed.length} failed\n`,
    );
  }
  setExit(failed.length > 0 ? EXIT.refused : EXIT.done);
}

function positiveInteger(value: string, option: string): number {
  if (!/^\s*[1-9]\d*\s*$/.test(String(value)))
    throw new UsageError(`${option} must be a positive integer, not ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * One line per transcript: what was done, the new session's id and directory and how to resume
 * it, then a line per warning; or where and why it failed. Control characters (in a file name, say) are shown escaped, so
 * they cannot move the cursor or break the line.
 */
function outcomeLine(outcome: TranscriptOutcome, destination: Destination): string {
  // Each warning on a line of its own under the outcome: joined, they made one line of many hundred characters.
  const warnings = outcome.report?.warnings.map((warning) => `\n  warning: ${printable(warning)}`) ?? [];
  return `${printable(describeOutcome(outcome, destination))}${warnings.join('')}`;
}

function describeOutcome(outcome: TranscriptOutcome, destination: Destination): string {
  const { report, error } = outcome;
  if (error && report) {
    const about = error.file !== undefined ? `${error.file}: ` : '';
    return `failed ${outcome.source}: ${about}${error.message} (${error.code}); the session was ${report.action === 'migrated' ? 'published' : 'there already'}, but migration-map.json does not record it: the same command run again records it (${madeLine(report, destination)})`;
  }
  if (error) {
    // A line number leads the message of a transcript error; it is already in the place.
    // A transcript Reasonix stops reading: salvage keeps every line that is a message on its own.
    const salvage =
      error.code === 'RX_JSONL_LINE'
        ? `; rxstore salvage ${shellCommand([outcome.source], destination.platform)} keeps the lines that are messages`
        : '';
    if (error.line !== undefined)
      return `failed ${error.file ?? outcome.source}:${error.line}: ${error.message.replace(/^line \d+: /, '')} (${error.code})${salvage}`;
    const about = error.file !== undefined && error.file !== outcome.source ? `${error.file}: ` : '';
    return `failed ${outcome.source}: ${about}${error.message} (${error.code})`;
  }
  return `${ACTION_WORDS[report!.action]} ${outcome.source}: ${madeLine(report!, destination)}`;
}

/** The session a transcript became, and how to resume it. */
function madeLine(report: NonNullable<TranscriptOutcome['report']>, destination: Destination): string {
  const { targetId, targetDir, slug } = report;
  const resume =
    report.resume ??
    (slug === null
      ? 'none: not a store `reasonix --resume` searches (<state root>/projects/<slug>/sessions-v4)'
      : `${resumeFromAnyFolder(targetId, destination)}, from the folder whose slug is ${slug}`);
  return `${targetId} -> ${targetDir}; resume: ${resume}`;
}

/** What a transcript's line says was done, in the words of the closing count. */
const ACTION_WORDS: Record<NonNullable<TranscriptOutcome['report']>['action'], string> = {
  migrated: 'migrated',
  'would-migrate': 'would migrate',
  exists: 'already migrated',
};

/** `[REASONIX_HOME=<root>] reasonix --resume <id>`, for when the folder to run it from is not known. */
function resumeFromAnyFolder(id: string, { platform, pinned }: Destination): string {
  return shellCommand(['reasonix', '--resume', id], platform, { env: pinned ? { [pinned.name]: pinned.value } : {} });
}
