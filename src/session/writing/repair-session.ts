import { constants as fsConstants } from 'node:fs';
import { link, lstat, open, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { TornTail } from '../../codec/batch.js';
import {
  DamagedStoreError,
  errorFromProblem,
  fileSystemErrorOf,
  NotRegularFileError,
  UnsupportedVersionError,
  type RxErrorCode,
} from '../../errors/index.js';
import { fsyncDir, writeNewFile } from '../../fs/atomic-write.js';
import { SESSION_FILES } from '../reading/session-files.js';
import { acquireWriterLocks } from '../reading/writer-locks.js';
import { readSession, reasonixRefuses, type SessionRead } from '../verdict/read-session.js';
import { CACHE_REFUSALS } from '../reading/recovery-cache.js';
import { failPoint } from '../../fs/fail-point.js';
import { checkPath } from '../../errors/caller-input.js';
import { linkedFolderOnTheWay } from '../../fs/linked-folder.js';
import { notOurs } from '../../fs/not-ours.js';

/** What `repairSession` did (or, a dry run, would do): the torn tail it cut, where the cut bytes were kept, the durable end. */
export interface RepairReport {
  dir: string;
  action: 'repaired' | 'would-repair' | 'nothing-to-repair';
  tornTail: TornTail | null;
  /** Where the cut bytes were kept. */
  evidence?: string;
  /** Reasonix's recovery cache held more of the session than the log, or was damaged: it was (or would be) removed. */
  staleCache?: boolean;
  /** Why the recovery cache goes: the refusal it caused, in words. */
  cacheProblem?: string;
  /** With `staleCache`: the codes of the cache refusals that make the caches go (`RX_QUERY_CACHE_BLOCKED`, …). */
  cacheCodes?: RxErrorCode[];
  durableEnd: number;
}

/** The bytes of the open log from `start` to `end`, in pieces of at most 1 MiB; a log that changed under the read is damage. */
async function* tornTailPieces(
  log: FileHandle,
  logPath: string,
  start: number,
  end: number,
): AsyncGenerator<Uint8Array> {
  for (let at = start; at < end; ) {
    const piece = Buffer.alloc(Math.min(1024 * 1024, end - at));
    const { bytesRead } = await log.read(piece, 0, piece.length, at);
    if (bytesRead !== piece.length)
      throw new DamagedStoreError('the log changed while it was repaired', { file: logPath, offset: start });
    yield piece;
    at += piece.length;
  }
}

/**
 * The log the read found torn (refused already if it is a link or has other names: `refusePlantedLog`),
 * opened to be cut: never through a link, and still as long as the read saw it.
 */
async function openTornLog(logPath: string, durableEnd: number, end: number): Promise<FileHandle> {
  const log = await open(logPath, fsConstants.O_RDWR | fsConstants.O_NOFOLLOW).catch((error: unknown) => {
    throw fileSystemErrorOf(error, logPath);
  });
  const stats = await log.stat();
  if (!stats.isFile() || stats.size !== end) {
    await log.close();
    throw new DamagedStoreError('the log changed while it was repaired', { file: logPath, offset: durableEnd });
  }
  return log;
}

/** A log that is a link, or a file with other names, is refused: cut, it would cut what they lead to too. */
function refusePlantedLog(logPath: string): void {
  const planted = notOurs(logPath);
  if (planted)
    throw new NotRegularFileError(
      `${SESSION_FILES.log} is ${planted}: rxstore repair cuts only a log of its own, and leaves it; repair a copy of the session (cp -r), or let Reasonix cut it when it opens the session`,
      { file: logPath },
    );
}

/** Whether the open log is still the file at its name, as long as it was: else another file was put there, and is left. */
async function stillTheLog(log: FileHandle, logPath: string, durableEnd: number, end: number): Promise<void> {
  const [open, named] = [
    await log.stat({ bigint: true }),
    await lstat(logPath, { bigint: true }).catch(() => undefined),
  ];
  if (named === undefined || named.dev !== open.dev || named.ino !== open.ino || open.size !== BigInt(end))
    throw new DamagedStoreError(
      'the log changed while it was repaired (another file was put in its place, or it grew): nothing was cut; the torn tail was kept',
      { file: logPath, offset: durableEnd },
    );
  // A second name given to it meanwhile (a backup linked while the repair ran) would be cut with it.
  if (open.nlink !== 1n) refusePlantedLog(logPath);
}

/** `events.torn-<unix nanoseconds>.tail`, named as Reasonix names its evidence files (docs/format.md §3.4). */
function evidenceName(): string {
  // Stryker disable next-line ArithmeticOperator: the evidence name's sub-millisecond part: the test can only bracket it by milliseconds
  const nanos = BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  return `events.torn-${nanos}.tail`;
}

/**
 * Repairs a torn tail as Reasonix's writer does (docs/format.md §3.4): under both writer locks, the
 * session is read once, and what that read finds decides the repair. A torn tail: the bytes after
 * the last committed batch are copied to an evidence file (exclusive create, fsync), then
 * Reasonix's disposable caches of the session are removed (they are rebuilt from the log, and one
 * that still knows the cut batch makes Reasonix refuse the session), then the log is truncated to
 * the durable end and fsynced. A whole log that a recovery or query cache makes Reasonix refuse:
 * the caches go. Anything else Reasonix refuses is not repaired in place: it is thrown, coded, and
 * `salvage` is the way forward. A dry run takes no lock and changes nothing.
 */
export async function repairSession(dir: string, options: { dryRun?: boolean } = {}): Promise<RepairReport> {
  checkPath(dir, 'dir');
  const logPath = join(dir, SESSION_FILES.log);
  const locks = options.dryRun
    ? undefined
    : await acquireWriterLocks(dir).catch(async (error: unknown) => {
        // A lock file Reasonix cannot use either (a folder, a dangling link) is the session's refusal: said as the read says it.
        refuseWhatRepairLeaves(await readSession(dir, { keep: 'summary' }), dir);
        throw error;
      });
  try {
    const read = await readSession(dir, { keep: 'summary' });
    const cacheCodes = refuseWhatRepairLeaves(read, dir);
    const { tornTail, durableEnd } = read;
    if (tornTail || (read.refusal && CACHE_REFUSALS.has(read.refusal.code))) refuseLinkedCaches(dir);
    if (!tornTail) {
      // A whole log behind Reasonix's recovery cache (cut at a batch boundary, or an older copy put back),
      // or a damaged checkpoint, or a query cache Reasonix would wait on: the caches go, and Reasonix rebuilds them from the log.
      const refusal = read.refusal;
      if (!refusal || !CACHE_REFUSALS.has(refusal.code))
        return { dir, action: 'nothing-to-repair', tornTail, durableEnd };
      const cleared = { tornTail, durableEnd, staleCache: true, cacheProblem: refusal.message, cacheCodes };
      if (options.dryRun) return { dir, action: 'would-repair', ...cleared };
      await removeDisposableCaches(dir);
      return { dir, action: 'repaired', ...cleared };
    }
    refusePlantedLog(logPath);
    if (options.dryRun) return { dir, action: 'would-repair', tornTail, durableEnd };

    // The cut bytes are copied a piece at a time: a torn tail can be as long as the log, and memory holds a piece.
    const end = tornTail.offset + tornTail.bytes;
    const log = await openTornLog(logPath, durableEnd, end);
    let evidence: string;
    try {
      const tail = tornTailPieces(log, logPath, durableEnd, end);
      // The evidence appears whole or not at all: a repair killed midway leaves the log as it was.
      evidence = join(dir, evidenceName());
      const staged = join(dir, `.${basename(evidence)}.tmp`);
      await writeNewFile(staged, tail, evidence);
      await link(staged, evidence).catch(async (error: unknown) => {
        await rm(staged, { force: true });
        throw fileSystemErrorOf(error, evidence);
      });
      // Stryker disable next-line StringLiteral: the name of a fail point: only the crash tests, which run the writer in a child process, stop at one
      failPoint('repair.evidence-linked');
      await rm(staged);
      // Stryker disable next-line StringLiteral: the name of a fail point: only the crash tests, which run the writer in a child process, stop at one
      failPoint('repair.staged-removed');
      await fsyncDir(dir);
      // Reasonix's disposable caches may know the batch the cut removes (its recovery checkpoint
      // records operations), and then it refuses to resume: "operation id conflicts with an earlier
      // batch". They are rebuilt from the log, so they go first: a repair killed after this is done again.
      await removeDisposableCaches(dir);
      // Stryker disable next-line StringLiteral: the name of a fail point: only the crash tests, which run the writer in a child process, stop at one
      failPoint('repair.caches-removed');
      // The file read is the file cut, through its descriptor, and only while its name still names it.
      await stillTheLog(log, logPath, durableEnd, end);
      await log.truncate(durableEnd);
      // Stryker disable next-line StringLiteral: the name of a fail point: only the crash tests, which run the writer in a child process, stop at one
      failPoint('repair.truncated');
      await log.sync();
      // Stryker disable next-line StringLiteral: the name of a fail point: only the crash tests, which run the writer in a child process, stop at one
      failPoint('repair.log-synced');
    } finally {
      await log.close();
    }
    return { dir, action: 'repaired', tornTail, evidence, durableEnd };
  } finally {
    await locks?.release();
  }
}

/**
 * What a repair cannot mend, refused before anything changes: a session Reasonix refuses for any
 * reason but its caches is damage to salvage, and a file Reasonix cannot use beside a sound log
 * needs what its refusal says. Gives the codes of the cache refusals, which the repair clears.
 */
function refuseWhatRepairLeaves(read: SessionRead, dir: string): RxErrorCode[] {
  const errors = read.problems.filter((found) => found.severity === 'error');
  const problem = errors.find((found) => !CACHE_REFUSALS.has(found.code));
  if (reasonixRefuses(read.status) && problem) {
    if (problem.code === 'RX_BLOCKED_FILE')
      throw errorFromProblem({
        ...problem,
        message: `${problem.message}; rxstore repair changes only a torn tail and Reasonix's caches, and leaves it`,
      });
    // Reasonix may go on with it all the same, from its recovery checkpoint: that cache is left, and the user told.
    const goesOn = read.goesOnFrom
      ? `; Reasonix goes on with it from its recovery checkpoint ${read.goesOnFrom.checkpoint}, past the damage, and the repair leaves that cache as it is`
      : '';
    const message = `the session is ${read.status}, not torn (${problem.message})${goesOn}; rxstore repair only cuts torn tails — use rxstore salvage ${dir}`;
    const data = {
      file: problem.data.file ?? dir,
      ...(problem.data.offset !== undefined ? { offset: problem.data.offset } : {}),
    };
    throw read.status === 'unsupported'
      ? new UnsupportedVersionError(message, data)
      : new DamagedStoreError(message, data);
  }
  return errors.filter((found) => CACHE_REFUSALS.has(found.code)).map((found) => found.code);
}

/** The folders of Reasonix's caches in the store: a repair removes `<folder>/<id>` from each. */
const CACHE_FOLDERS = ['.recovery-cache', '.query-cache'];

/** A cache folder that is a link out of the store is refused before anything changes: removing through it would remove what it leads to. */
function refuseLinkedCaches(dir: string): void {
  for (const folder of CACHE_FOLDERS) {
    const linked = linkedFolderOnTheWay(dirname(dir), folder, basename(dir));
    if (linked)
      throw new NotRegularFileError(
        `${linked} is a symbolic link: rxstore repair removes Reasonix's caches of the session, and not through a link, which leads out of the store; nothing was changed`,
        { file: linked },
      );
  }
}

/**
 * The caches Reasonix rebuilds from the log (docs/format.md §9.8, §9.9): the store's
 * `.recovery-cache/<id>/` and `.query-cache/<id>/`, and the session's offset index.
 */
async function removeDisposableCaches(dir: string): Promise<void> {
  const store = dirname(dir);
  const id = basename(dir);
  refuseLinkedCaches(dir);
  for (const folder of CACHE_FOLDERS) await rm(join(store, folder, id), { recursive: true, force: true });
  await rm(join(dir, SESSION_FILES.offsetIndex), { force: true });
  await fsyncDir(store);
}
