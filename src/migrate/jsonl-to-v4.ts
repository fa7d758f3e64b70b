import { randomBytes } from 'node:crypto';
import { lstat, realpath, rename } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { BatchToWrite } from '../codec/encode-batch.js';
import {
  fileSystemErrorOf,
  InvalidInputError,
  isSessionVerdict,
  MigrationRefusedError,
  onFileSystem,
  RxError,
  SessionExistsError,
  undefinedIfMissing,
} from '../errors/index.js';
import { readLogBatches } from '../codec/read-log.js';
import { withStoreLock } from '../fs/store-lock.js';
import { checkFolder, checkOutside } from '../fs/path-kind.js';
import { refuseSessionFolder } from '../session/reading/not-a-session-folder.js';
import { goTime } from '../codec/go-json/go-json.js';
import { V4_CODEC } from '../codec/records.js';
import { createSession } from '../session/writing/create-session.js';
import { readManifest } from '../session/reading/manifest.js';
import { readableOrThrow } from '../session/reading/read-json-file.js';
import type { Message } from '../session/replay/message.js';
import { repeatedRecordMessage } from '../session/replay/projection.js';
import { collidingRecordKeys } from '../session/replay/transcript-records.js';
import { repairForNewTurn, type TurnRepair } from '../session/writing/turn-repair.js';
import { gateFacts, transcriptGate } from '../session/replay/transcript-gate.js';
import { GateColumns } from '../session/replay/gate-columns.js';
import { StringTable } from '../compact/string-table.js';
import type { WriteBytes } from '../fs/atomic-write.js';
import { SESSION_FILES } from '../session/reading/session-files.js';
import { branchIdOf, transcriptReadPaths } from '../store/jsonl/jsonl-sidecars.js';
import { transcriptRuns } from '../store/jsonl/jsonl-transcript.js';
import { takeTranscriptLease } from '../store/jsonl/transcript-lease.js';
import { goMessage } from '../store/jsonl/jsonl-message.js';
import { ImportRepairs, type ImportedMessage } from '../store/jsonl/import-repairs.js';
import { readJsonlMeta } from '../store/jsonl/jsonl-meta.js';
import { legacyIdAssigner } from '../store/roots/legacy-ids.js';
import { machineRoots } from '../store/roots/machine-roots.js';
import { currentPlatform, type Platform } from '../store/roots/platform.js';
import { goWorkingDirectory } from '../store/roots/working-directory.js';
import { copyArtifact, freezeLegacySource, openArtifact, type LegacySource } from '../store/jsonl/legacy-source.js';
import { recordMigration } from './migration-map.js';
import { migrationTarget, type MigrationTarget } from './migration-target.js';
import { checkPath } from '../errors/caller-input.js';

/** Reasonix commits a legacy import in batches of at most this many messages (docs/format.md §10.1 step 5). */
const MESSAGES_PER_BATCH = 128;

/** Where `migrateJsonlToV4` writes, and whether it only says what it would do. */
export interface MigrationOptions {
  /**
   * The sessions-v4 directory to publish into. Default: where Reasonix 1.38.11 puts the transcript
   * when it resumes it from `cwd` (see `migrationTarget`).
   */
  to?: string;
  /** The state root Reasonix uses; default this machine's (`REASONIX_STATE_HOME`, `REASONIX_HOME`, the home's `.reasonix`). */
  stateRoot?: string;
  /** The folder `reasonix --resume` would be run from; default the current directory, as the shell names it. */
  cwd?: string;
  platform?: Platform;
  dryRun?: boolean;
}

/** What a migration did: wrote the session, found it already there, or (a dry run) would write it. */
export type MigrationAction = 'migrated' | 'exists' | 'would-migrate';

/** What `migrateJsonlToV4` did with one transcript: the source it read, the session it names, the counts. */
export interface MigrationReport {
  /** The transcript's absolute path with links resolved: the path Reasonix records and hashes. */
  source: string;
  sourceSize: number;
  sourceSha256: string;
  targetId: string;
  targetDir: string;
  /** Why the session goes to that store (see `MigrationTarget`). */
  placement: MigrationTarget['placement'];
  /** A folder `reasonix --resume <targetId>` finds the session from; null when none is known. */
  workspace: string | null;
  /** The slug folder of the target store under `<state>/projects/`; null for a store elsewhere. */
  slug: string | null;
  action: MigrationAction;
  messages: number;
  batches: number;
  warnings: string[];
  /**
   * Why the session, published (or found already there), has no entry in `migration-map.json`: the map
   * could not be written (a full disk). Reasonix resumes the session; a run again writes the entry.
   */
  unrecorded?: RxError;
}

/**
 * Migrates one JSONL transcript into sessions-v4 as Reasonix 1.38.11 does when it resumes
 * one (docs/format.md §10.1): into the store it picks (a workspace's own transcript into that workspace's
 * store, any other into the store of the folder it runs from), with the same target id, message
 * ids and `legacy-import` commits, byte copies of the transcript and its sidecars under `legacy/`,
 * the manifest `source`, the migration-map entry. Built in a staging directory and published by
 * one rename under the store lock; the source is only read. A re-run finds the target and does nothing.
 * Done under the transcript's lease, as Reasonix does it: while a Reasonix or another rxstore holds the
 * lease, the transcript is refused (`WriterOwnedError`) once a moment's wait is over.
 * One deliberate difference: tool calls in OpenAI's nested form are flattened (with a warning), where
 * Reasonix's own migration loses their names and arguments, then refuses to resume.
 */
export async function migrateJsonlToV4(transcript: string, options: MigrationOptions = {}): Promise<MigrationReport> {
  checkPath(transcript, 'transcript');
  // A store named with `to` is one that is there (a typo makes no store nobody looks in), outside the transcript's own files.
  if (options.to !== undefined) await checkFolder(resolve(options.to), options.to, { mustExist: true });
  if (options.to !== undefined) await refuseSessionFolder(resolve(options.to), options.to);
  const path = await canonicalTranscriptPath(transcript);
  if (options.to !== undefined)
    await checkOutside(resolve(options.to), options.to, 'folder', transcriptReadPaths(path));
  // Held from the freeze until the session is published and mapped, as Reasonix holds it: a resume of the same
  // transcript never publishes the same session at the same moment (it failed "rename … file exists", and the
  // turn typed was lost). A dry run writes nothing, and takes no lease.
  const lease = options.dryRun ? undefined : await takeTranscriptLease(path);
  try {
    return await migrateFrozen(path, options);
  } finally {
    await lease?.release();
  }
}

/** `migrateJsonlToV4` of a transcript at its canonical path, once its lease is held. */
async function migrateFrozen(path: string, options: MigrationOptions): Promise<MigrationReport> {
  const source = await freezeLegacySource(path);
  const plan = await planImport(source);
  const { messages, warnings } = plan;
  const operationIds = importOperationIds(source, plan);
  const platform = options.platform ?? currentPlatform();
  const cwd = resolve(options.cwd ?? goWorkingDirectory());
  const stateRoot =
    options.stateRoot === undefined
      ? (await machineRoots({ cwd, platform })).roots.reasonixStateRoot
      : resolve(options.stateRoot);
  if (stateRoot === undefined && options.to === undefined) {
    throw new InvalidInputError(
      'Reasonix has no state root here (no REASONIX_HOME and no home directory): name one, or the store to publish into',
    );
  }
  const declared = await declaredWorkspace(source);
  if (declared.warning) warnings.push(declared.warning);
  const target = await migrationTarget(path, {
    stateRoot: stateRoot ?? cwd,
    cwd,
    platform,
    declaredWorkspace: declared.workspace,
    to: options.to,
  });
  const { storeDir } = target;
  const targetDir = join(storeDir, source.targetId);
  const report = (action: MigrationAction): MigrationReport => ({
    source: path,
    sourceSize: source.size,
    sourceSha256: source.sha256,
    targetId: source.targetId,
    targetDir,
    placement: target.placement,
    workspace: target.workspace,
    slug: target.slug,
    action,
    messages,
    batches: operationIds.length,
    warnings,
  });
  if (options.dryRun)
    return report((await existingTarget(targetDir, source, operationIds)) === 'migrated' ? 'exists' : 'would-migrate');

  let action: MigrationAction = 'exists';
  const found = await existingTarget(targetDir, source, operationIds);
  if (found !== 'migrated') {
    if (found === 'incomplete') {
      const aside = await setAside(storeDir, source.targetId);
      warnings.push(
        `an earlier migration left ${targetDir} without all its messages; it was moved to ${aside} and migrated again`,
      );
    }
    try {
      await createSession({
        storeDir,
        sessionId: source.targetId,
        source: { path, size: source.size, sha256: source.sha256, version: 'legacy' },
        // Written as they are read, a batch and a chunk at a time: memory is bounded by the largest message, never the transcript.
        batches: importBatches(source, plan),
        keepBatches: false,
        files: source.artifacts.map((artifact) => ({
          path: join('legacy', relative(dirname(path), artifact.path)),
          write: (write: WriteBytes) => copyArtifact(artifact, write),
        })),
      });
      action = 'migrated';
    } catch (error) {
      // Another run published the same migration first: it is the same session.
      if (
        !(error instanceof SessionExistsError) ||
        (await existingTarget(targetDir, source, operationIds)) !== 'migrated'
      )
        throw error;
    }
  }
  let unrecorded: RxError | undefined;
  try {
    await recordMigration(storeDir, {
      sourcePath: path,
      sourceSize: source.size,
      sourceSha256: source.sha256,
      targetCodec: V4_CODEC,
      targetId: source.targetId,
      createdAt: goTime(new Date()),
    });
  } catch (error) {
    // The session is published whole by now: that is said, with what kept its map entry from being written.
    const coded = fileSystemErrorOf(error);
    if (!(coded instanceof RxError)) throw error;
    unrecorded = coded;
  }
  const after = await freezeLegacySource(path);
  if (after.sha256 !== source.sha256) {
    warnings.push('the transcript changed while it was migrated: the session holds the bytes read at the start');
  }
  return { ...report(action), ...(unrecorded !== undefined ? { unrecorded } : {}) };
}

/** The absolute path with every link resolved, as Reasonix canonicalises a session path before hashing it. */
async function canonicalTranscriptPath(transcript: string): Promise<string> {
  return realpath(resolve(transcript));
}

/** `.jsonl.meta` `workspace_root`: the folder the transcript says it belongs to (docs/format.md §11.3). */
async function declaredWorkspace(source: LegacySource): Promise<{ workspace?: string; warning?: string }> {
  if (!source.artifacts.some((artifact) => artifact.path === `${source.path}.meta`)) return {};
  // The meta as frozen, read as every metadata file is: a regular file, capped, never whole past its bound.
  const read = await readJsonlMeta(source.path);
  if (read.state === 'ok') return read.value.workspace_root ? { workspace: read.value.workspace_root } : {};
  if (read.state === 'invalid') {
    // A meta file Reasonix cannot decode declares no workspace, and is said so, as inspect says it (RX_JSONL_META).
    return {
      warning: `invalid .jsonl.meta (${read.reason.replace(/^not JSON \((.*)\)$/, 'not JSON: $1')}): it declares no workspace (RX_JSONL_META)`,
    };
  }
  return {};
}

/** What the import of a transcript writes, found by reading it once without keeping its messages. */
interface ImportPlan {
  messages: number;
  warnings: string[];
  /** The model view made one Reasonix takes a new turn after, when the transcript as it is is not. */
  repair?: TurnRepair;
}

/**
 * Reads the frozen transcript once, a run of whole messages at a time, as `inspect` reads the file
 * (a message over rxstore's bound is RX_TOO_LARGE), keeping of each message only what the checks
 * need (its id, its gate facts): the count, the warnings, or the reason Reasonix could not resume
 * the result. Only a transcript Reasonix would refuse a new turn after is held whole, for the
 * `model/context-replace` that repairs it, which holds it whole too.
 */
async function planImport(source: LegacySource): Promise<ImportPlan> {
  const warnings: string[] = [];
  let flattened = 0;
  let count = 0;
  let firstRole: unknown;
  // Held compact (the ids' bytes in one table, the gate's facts in columns): a transcript of 300,000 short
  // messages held them as a string and an object each, 200 MiB more at the peak.
  const seen = new StringTable();
  const recordKeys = new StringTable();
  const facts = new GateColumns(new StringTable());
  // Damage anywhere in the transcript is said before a duplicate id or a call answered twice: the reader stops at it first.
  let duplicate: MigrationRefusedError | undefined;
  const repeatedRecord = (key: string, line: number) => {
    const call = key.startsWith('tool:') ? key.slice('tool:'.length) : undefined;
    const what =
      call === undefined
        ? `a second transcript record ${JSON.stringify(key)}`
        : `a second result for tool call ${JSON.stringify(call)}`;
    return new MigrationRefusedError(
      `line ${line}: ${what} (Reasonix refuses: ${repeatedRecordMessage(key, source.targetId)})`,
      {
        file: source.path,
        line,
      },
    );
  };
  for await (const { message, line } of importMessages(source)) {
    flattened += message.flattened;
    const id = message.value.id as string;
    if (seen.find(id) >= 0)
      duplicate ??= new MigrationRefusedError(
        `line ${line}: duplicate message id ${JSON.stringify(id)} (Reasonix refuses duplicate ids)`,
        { file: source.path, line },
      );
    seen.intern(id);
    // Said here, with its line, rather than by the write once every message before it is written.
    for (const key of collidingRecordKeys(message.value as unknown as Message)) {
      if (recordKeys.find(key) >= 0) duplicate ??= repeatedRecord(key, line);
      recordKeys.intern(key);
    }
    if (count === 0) firstRole = message.value.role;
    count += 1;
    if (!message.value.local_only) facts.push(gateFacts(message.value as unknown as Message) ?? null);
  }
  if (duplicate) throw duplicate;
  if (flattened > 0) {
    warnings.push(
      `${flattened === 1 ? '1 tool call' : `${flattened} tool calls`} in OpenAI's nested form ${flattened === 1 ? 'was' : 'were'} flattened (Reasonix 1.38.11's own migration loses their names and arguments, then refuses to resume)`,
    );
  }
  if (count > 0 && firstRole !== 'system') {
    warnings.push(
      'the transcript has no system message: Reasonix resumes it without a system prompt (and does not add one)',
    );
  }
  if (transcriptGate(facts).accepted) return { messages: count, warnings };
  // Reasonix's own migration of such a transcript opens and then refuses every new turn: the model
  // is sent a list its transcript gate takes, and the transcript keeps every message as it was.
  const view: Message[] = [];
  for await (const { message } of importMessages(source))
    if (!message.value.local_only) view.push(message.value as unknown as Message);
  const repair = repairForNewTurn(view);
  if (!repair) return { messages: count, warnings };
  warnings.push(
    `Reasonix would take no new turn after the transcript as it is ("${repair.refusal}"): what the model is sent was changed (${repair.changes.length} ${repair.changes.length === 1 ? 'change' : 'changes'}, each kept with what was there in a diagnostic event); the transcript keeps every message`,
  );
  return { messages: count, warnings, repair };
}

/**
 * The messages of the frozen transcript, converted and repaired as Reasonix's migration converts and repairs
 * them (`ImportRepairs`), with the ids it gives them, one at a time: the file is read again each time, and
 * refused if it is no longer what was hashed. A line that is not a message is damage, named as every reader
 * names it. A stand-in result Reasonix adds for a call is given with its call's line.
 */
async function* importMessages(source: LegacySource): AsyncGenerator<{
  message: { value: Record<string, unknown>; written: Record<string, unknown>; flattened: number };
  line: number;
}> {
  const reader = await openArtifact(source.artifacts.find((artifact) => artifact.path === source.path)!);
  try {
    const withId = legacyIdAssigner(branchIdOf(source.path));
    const repairs = new ImportRepairs<{ line: number; flattened: number }>();
    const settled = function* (entries: ImportedMessage<{ line: number; flattened: number }>[]) {
      for (const entry of entries) {
        const { message, written } = withId(entry.message, entry.written);
        yield { message: { value: message, written, flattened: entry.place.flattened }, line: entry.place.line };
      }
    };
    for await (const run of transcriptRuns(reader.readAt, source.path)) {
      for (const { value, line, text } of run.lines) {
        const result = goMessage(value, text);
        yield* settled(
          repairs.push({
            message: result.message,
            written: result.written,
            place: { line, flattened: result.flattenedToolCalls },
          }),
        );
      }
      // Reasonix's loader stops at the first error, and so does the reader: there is one at most.
      const [error] = run.errors;
      if (error) throw error;
    }
    yield* settled(repairs.finish());
    await reader.verify();
  } finally {
    await reader.close();
  }
}

/** The operation ids of the import's commits, in order: `existingTarget` looks for every one. */
function importOperationIds(source: LegacySource, plan: ImportPlan): string[] {
  const ids = Array.from(
    { length: Math.ceil(plan.messages / MESSAGES_PER_BATCH) },
    (_, index) => `legacy-import:${source.sha256}:messages:${index}`,
  );
  return plan.repair ? [...ids, `legacy-import:${source.sha256}:new-turn`] : ids;
}

/** The import's commits, made as the transcript is read again: at most `MESSAGES_PER_BATCH` messages in memory. */
async function* importBatches(source: LegacySource, plan: ImportPlan): AsyncGenerator<BatchToWrite> {
  const [messageBatchIds, newTurnId] = [
    importOperationIds(source, { ...plan, repair: undefined }),
    `legacy-import:${source.sha256}:new-turn`,
  ];
  let events: BatchToWrite['events'] = [];
  let index = 0;
  for await (const { message } of importMessages(source)) {
    // As Go writes it: a raw field's text as written (`goMessage`).
    events.push({ kind: 'message/complete', payload: { message: message.written } });
    if (events.length === MESSAGES_PER_BATCH) {
      yield { operationId: messageBatchIds[index]!, events };
      index += 1;
      events = [];
    }
  }
  if (events.length > 0) yield { operationId: messageBatchIds[index]!, events };
  const { repair } = plan;
  if (repair) {
    yield {
      operationId: newTurnId,
      events: [
        {
          kind: 'diagnostic',
          payload: {
            migration: { source: source.path, turnRepair: { refusal: repair.refusal, changes: repair.changes } },
          },
        },
        {
          kind: 'model/context-replace',
          payload: {
            messages: repair.messages,
            reason: `rxstore migrate: Reasonix refused a new turn (${repair.refusal})`,
          },
        },
      ],
    };
  }
}

/**
 * Whether the target session is there, made from these very bytes, with every batch of the import
 * verified in its log (a session Reasonix went on with has more after them): `migrated`. One made
 * from these bytes that lacks some (a migration cut short: by a full disk, say) is `incomplete`,
 * and is migrated again; another session there is a conflict.
 */
async function existingTarget(
  targetDir: string,
  source: LegacySource,
  operationIds: readonly string[],
): Promise<'absent' | 'migrated' | 'incomplete'> {
  if (!(await lstat(targetDir).catch(undefinedIfMissing))) return 'absent';
  const manifest = readableOrThrow(await readManifest(join(targetDir, SESSION_FILES.manifest)));
  if (manifest.state !== 'ok' || manifest.value.source?.sha256 !== source.sha256) {
    throw new MigrationRefusedError('the session directory already exists and was not made from this transcript', {
      file: targetDir,
    });
  }
  const wanted = new Set(operationIds);
  try {
    for await (const item of readLogBatches(join(targetDir, SESSION_FILES.log)))
      if (item.type === 'batch') wanted.delete(item.batch.operationId);
  } catch (error) {
    // Damage after the import's batches is the session's own matter; before them, the import is not all there.
    if (!isSessionVerdict(error)) throw error;
  }
  return wanted.size > 0 ? 'incomplete' : 'migrated';
}

/**
 * Moves an incomplete migration out of the way, under the store lock, to a dot-name beside it that
 * readers pass over (`.<id>.unverified-rxstore-<12 hex>`): nothing of it is lost. Returns where.
 */
async function setAside(storeDir: string, id: string): Promise<string> {
  const aside = join(storeDir, `.${id}.unverified-rxstore-${randomBytes(6).toString('hex')}`);
  await withStoreLock(storeDir, async (compromised) => {
    compromised.throwIfAborted();
    await onFileSystem(rename(join(storeDir, id), aside), join(storeDir, id));
  });
  return aside;
}
