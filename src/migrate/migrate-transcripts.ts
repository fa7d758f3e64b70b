import type { Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import {
  FileSystemError,
  isSystemError,
  NotASessionError,
  RxError,
  systemErrorInWords,
  UsageError,
  type RxErrorCode,
} from '../errors/index.js';
import { checkExistingFolder, checkFolder, checkOutside } from '../fs/path-kind.js';
import { refuseSessionFolder } from '../session/reading/not-a-session-folder.js';
import { transcriptReadPaths } from '../store/jsonl/jsonl-sidecars.js';
import { resumeOfCopy } from '../store/locate-session.js';
import type { ResumeContext } from '../store/resume/resume-verdict.js';
import { isTranscriptName, listTranscripts } from '../store/jsonl/jsonl-names.js';
import { mapInOrder } from '../store/listing/map-in-order.js';
import { expandDirValue } from '../store/roots/expand-dir-value.js';
import { machineRoots, type MachineRootOptions } from '../store/roots/machine-roots.js';
import type { Platform } from '../store/roots/platform.js';
import type { RootInputs } from '../store/roots/roots.js';
import { goWorkingDirectory } from '../store/roots/working-directory.js';
import { migrateJsonlToV4, type MigrationReport } from './jsonl-to-v4.js';
import { resumeCommand, type PinnedRoot } from './resume-command.js';
import { unmigratedTranscripts } from './unmigrated-transcripts.js';

/** Why one transcript did not migrate: its error, flat, as `--json` prints it. */
export interface TranscriptFailure {
  code: RxErrorCode;
  message: string;
  /** The system's error code (`EACCES`, …) of an RX_FILE_SYSTEM failure. */
  errno?: string;
  file?: string;
  line?: number;
}

/**
 * What became of one transcript; `report.resume` is the command that opens its session (null when no folder is
 * known to run it from). Both `report` and `error`: the session was published (or was there), but its entry in
 * `migration-map.json` could not be written; a run again writes it.
 */
export interface TranscriptOutcome {
  source: string;
  report?: MigrationReport & { resume: string | null };
  error?: TranscriptFailure;
}

/** Which transcripts to migrate, and where their sessions go. */
export interface TranscriptMigrationOptions
  extends Pick<MachineRootOptions, 'home' | 'stateHome' | 'env' | 'platform' | 'homeDir'> {
  /** A `.jsonl` transcript, or a folder of them; or `all`. */
  path?: string;
  /** Every JSONL transcript of the state roots that has no sessions-v4 or desktop twin. */
  all?: boolean;
  /** The store to write into, instead of the one Reasonix would use. */
  to?: string;
  dryRun?: boolean;
  /** The folder a transcript of no workspace is migrated for, and printed commands run from; the current one by default. */
  cwd?: string;
  /** Transcripts migrated at once; 4 by default. */
  concurrency?: number;
  /**
   * Called with each outcome as it is known (in the order of the transcripts), with how many there
   * are and what a printed command needs: a progress bar's step.
   */
  onOutcome?: (outcome: TranscriptOutcome, run: MigrationRun) => void;
}

/** How many transcripts a migration takes, and what a printed command needs to reach their sessions. */
export interface MigrationRun {
  total: number;
  platform: Platform;
  /** The variable that pins the state root in a printed command, when an option or the environment set it. */
  pinned: PinnedRoot | undefined;
}

/** The outcomes, sorted by source, and what a printed command needs to reach the sessions. */
export interface TranscriptMigration extends MigrationRun {
  outcomes: TranscriptOutcome[];
}

/**
 * Migrates a transcript, a folder of transcripts, or every unmigrated transcript on the machine
 * into sessions-v4 (`migrateJsonlToV4` for each, a few at once): one failure never stops the rest,
 * and each is an outcome with its coded error. Anything but a regular `.jsonl` file or a folder is
 * refused before a byte is read; so is a `to` or `cwd` that is not a folder.
 */
export async function migrateTranscripts(options: TranscriptMigrationOptions): Promise<TranscriptMigration> {
  if (options.all === (options.path !== undefined))
    throw new UsageError('name a transcript or a directory, or give --all');
  // An empty name names nothing, as for every command that takes a session (not the current folder).
  if (options.path?.trim() === '') throw new UsageError('name a transcript or a directory, or give --all');
  const cwd = resolve(options.cwd ?? goWorkingDirectory());
  // The folder the printed resume command runs from, and whose store a transcript of no workspace goes into: it must be there.
  if (options.cwd !== undefined) await checkExistingFolder(cwd, options.cwd);
  const { inputs, roots, resume } = await machineRoots({ ...options, cwd });
  const stateRoot = roots.reasonixStateRoot;
  if (stateRoot === undefined && options.to === undefined) {
    throw new UsageError(
      'Reasonix has no state root here (no REASONIX_HOME and no home directory): give --home or --state-home, or --to',
    );
  }
  // A file named as the store, or a folder that is not there, is no place for any transcript.
  if (options.to !== undefined) await checkFolder(resolve(options.to), options.to, { mustExist: true });
  if (options.to !== undefined) await refuseSessionFolder(resolve(options.to), options.to);
  const pinned = pinnedRoot(options, inputs, stateRoot);
  const { transcripts, special } = options.all
    ? { transcripts: await unmigratedTranscripts(roots.roots, inputs.platform), special: [] }
    : await transcriptsAt(resolve(options.path!));
  // A store inside what is migrated (a transcript's sidecar folder) is refused before any is migrated.
  if (options.to !== undefined)
    for (const transcript of transcripts)
      await checkOutside(resolve(options.to), options.to, 'folder', transcriptReadPaths(transcript));
  const run: MigrationRun = { total: transcripts.length + special.length, platform: inputs.platform, pinned };
  for (const outcome of special) options.onOutcome?.(outcome, run);
  const where: ResumeContext = { ...resume, cwd: goWorkingDirectory() };
  const migrate = (source: string) =>
    migrateOne(source, options, { stateRoot, cwd, platform: inputs.platform, pinned, where });
  const outcomes: TranscriptOutcome[] = [...special];
  for await (const outcome of mapInOrder(transcripts, options.concurrency ?? 4, migrate)) {
    options.onOutcome?.(outcome, run);
    outcomes.push(outcome);
  }
  outcomes.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  return { ...run, outcomes };
}

/**
 * The variable a printed command needs for Reasonix to use the same state root: the one that set
 * it, from an option or the environment (docs/format.md §1.1). None when it is the default.
 */
function pinnedRoot(
  options: TranscriptMigrationOptions,
  inputs: RootInputs,
  stateRoot: string | undefined,
): PinnedRoot | undefined {
  if (stateRoot === undefined) return undefined;
  if (options.stateHome !== undefined || expandDirValue(inputs.env.REASONIX_STATE_HOME, inputs))
    return { name: 'REASONIX_STATE_HOME', value: stateRoot };
  if (options.home !== undefined || expandDirValue(inputs.env.REASONIX_HOME, inputs))
    return { name: 'REASONIX_HOME', value: stateRoot };
  return undefined;
}

/**
 * The transcripts a path names, and the names in a directory that look like transcripts but are
 * not regular files; anything but a regular `.jsonl` file or a directory is refused before a byte is read.
 */
async function transcriptsAt(path: string): Promise<{ transcripts: string[]; special: TranscriptOutcome[] }> {
  const stats = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new NotASessionError(`${path}: ${systemErrorInWords(error)}`, { file: path });
  });
  if (stats.isDirectory()) {
    const transcripts = await listTranscripts(path);
    const special = (await readdir(path, { withFileTypes: true }))
      .filter(
        (entry) =>
          isTranscriptName(entry.name) &&
          (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()),
      )
      .map((entry): TranscriptOutcome => {
        const source = join(path, entry.name);
        return {
          source,
          error: {
            code: 'RX_NOT_REGULAR_FILE',
            message: `${fileKind(entry)}, not a regular file: a transcript is a regular file`,
            file: source,
          },
        };
      });
    if (transcripts.length + special.length === 0)
      throw new NotASessionError(`${path}: no JSONL transcripts in this directory`, { file: path });
    return { transcripts, special };
  }
  if (!stats.isFile())
    throw new NotASessionError(
      `${path}: ${fileKind(stats)}, not a regular file: a transcript is a regular .jsonl file`,
      { file: path },
    );
  if (!path.endsWith('.jsonl')) throw new NotASessionError(`${path}: not a .jsonl transcript`, { file: path });
  return { transcripts: [path], special: [] };
}

function fileKind(stats: Pick<Stats, 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : 'a special file';
}

interface Destination {
  stateRoot: string | undefined;
  cwd: string;
  platform: Platform;
  pinned: PinnedRoot | undefined;
  /** What `rxstore where`, run here, judges a written session's resume command by. */
  where: ResumeContext;
}

async function migrateOne(
  source: string,
  options: TranscriptMigrationOptions,
  destination: Destination,
): Promise<TranscriptOutcome> {
  try {
    const report = await migrateJsonlToV4(source, {
      to: options.to,
      dryRun: options.dryRun,
      cwd: destination.cwd,
      platform: destination.platform,
      ...(destination.stateRoot !== undefined ? { stateRoot: destination.stateRoot } : {}),
    });
    // Written into Reasonix's own stores: the command `rxstore where` prints (the one rule), told the
    // folder it was migrated for. A dry run's session, or one in a `to` store, from that folder.
    const written =
      (report.action === 'migrated' || report.action === 'exists') && options.to === undefined
        ? await resumeOfCopy(report.targetDir, report.targetId, {
            ...destination.where,
            workspace: report.workspace ?? destination.cwd,
          })
        : undefined;
    const resume =
      written !== undefined
        ? written
        : report.workspace === null
          ? null
          : resumeCommand(report.targetId, report.workspace, destination.platform, destination.pinned);
    const { unrecorded, ...made } = report;
    // Published, but not in the migration map: a failure, said with the session it made.
    return {
      source,
      report: { ...made, resume },
      ...(unrecorded !== undefined ? { error: failureOf(unrecorded) } : {}),
    };
  } catch (error) {
    // The system's error, coded (RX_FILE_SYSTEM): the words as the message, the path as the file, once.
    const coded = isSystemError(error) ? new FileSystemError(error) : error;
    if (!(coded instanceof RxError)) throw error;
    return { source, error: failureOf(coded) };
  }
}

/** A coded error, flat, as `--json` prints it; a file-system error's message without the path `file` already says. */
function failureOf(coded: RxError): TranscriptFailure {
  const { code, message, data } = coded.toJSON();
  const file = data.file === undefined ? undefined : shownPath(data.file);
  const said =
    coded instanceof FileSystemError && data.file !== undefined && message.startsWith(`${data.file}: `)
      ? message.slice(data.file.length + 2)
      : message;
  return { code, message: said, ...data, ...(file !== undefined ? { file } : {}) };
}

/** A staging directory is never a name to show: the store it sits in is. */
function shownPath(path: string): string {
  return /^\.tmp-rxstore-/.test(basename(path)) ? dirname(path) : path;
}
