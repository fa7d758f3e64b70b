import { stat } from 'node:fs/promises';
import { goTime } from '../../codec/go-json/go-json.js';
import { Projection, type ProjectionOptions } from '../../session/replay/projection.js';
import { newTurnProblem } from '../../session/replay/transcript-gate.js';
import {
  type EmptyTranscriptError,
  errorFromProblem,
  fileSystemErrorOf,
  onFileSystem,
  problemFromError,
  type Problem,
  type TranscriptLineError,
} from '../../errors/index.js';
import { readableOrThrow } from '../../session/reading/read-json-file.js';
import type { SessionRead } from '../../session/verdict/read-session.js';
import { blockedSidecar, branchIdOf } from './jsonl-sidecars.js';
import { goMessage } from './jsonl-message.js';
import { jsonlMetaTime, jsonlMetaTitle, readJsonlMeta } from './jsonl-meta.js';
import { transcriptFileRuns } from './jsonl-transcript.js';
import { ImportRepairs, type ImportedMessage } from './import-repairs.js';
import { legacyIdAssigner } from '../roots/legacy-ids.js';

/**
 * Reads a JSONL transcript (docs/format.md §11) into the same shape as a v4 session read, so that every
 * view, the hygiene checks and `inspect` work on it: each line replays as a `message/complete`,
 * with the ids Reasonix would give it (docs/format.md §8.3). Messages without `createdAt` take the meta
 * file's `created_at`, else the transcript's modification time. Where Reasonix's loader stops (see
 * `parseTranscript`) is a problem named by its line; the views hold the messages before it. The file
 * is replayed a run of messages at a time: with `keep` other than `whole`, memory does not grow with it.
 */
export async function readJsonlSession(
  path: string,
  options: Pick<ProjectionOptions, 'keep' | 'previews'> & {
    /** Where to stop reading: the offset of a line (lines from it on are left unread). */
    end?: number;
  } = {},
): Promise<SessionRead> {
  const id = branchIdOf(path);
  const [stats, meta] = await onFileSystem(Promise.all([stat(path), readJsonlMeta(path).then(readableOrThrow)]), path);
  const declared = meta.state === 'ok' ? meta.value : undefined;
  const startedAt = jsonlMetaTime(declared?.created_at) ?? stats.mtime.toISOString();
  const projection = new Projection({
    ...(declared ? { title: jsonlMetaTitle(declared) } : {}),
    keep: options.keep,
    previews: options.previews,
  });
  const flattened: Problem[] = [];
  const strict: Problem[] = [];
  let errors: MigratedRun['errors'] = [];
  let loaded = 0;
  let through: { digest: string; end: number } | undefined;
  for await (const run of migratedRuns(path, options.end)) {
    for (const problem of run.flattened) flattened.push(problem);
    const found = projection.strictness.length;
    projection.replayTranscript(run.messages, startedAt);
    // Reasonix migrates what it loaded into v4 message/complete events: a message id used twice is refused there.
    for (const finding of projection.strictness.slice(found)) {
      const line = run.lines[finding.seq - 1 - loaded];
      strict.push({
        code: 'RX_STRICT_PAYLOAD',
        severity: 'error',
        message: `Reasonix 1.38.11 would refuse: invalid message/complete payload at ${finding.seq}: ${finding.message}`,
        data: { file: path, ...(line !== undefined ? { line } : {}) },
      });
    }
    loaded += run.messages.length;
    // Through the last run with messages: what a second read that stops at the last message read.
    if (run.messages.length > 0) through = { digest: run.through, end: run.end };
    errors = run.errors;
  }
  const problems: Problem[] = errors.map(problemFromError);
  const blocked = blockedSidecar(path);
  if (blocked) problems.push(blocked);
  if (meta.state === 'invalid')
    problems.push({
      code: 'RX_JSONL_META',
      severity: 'warning',
      message: `invalid .jsonl.meta: ${meta.reason}`,
      data: { file: `${path}.meta` },
    });
  problems.push(...flattened, ...strict);
  const firstError = problems.find((problem) => problem.severity === 'error');
  // What Reasonix migrates it to opens, but a new turn in it may still be refused.
  const turn = firstError ? undefined : newTurnProblem(projection.newTurn, path);
  if (turn) problems.push(turn);
  // The loader's own error where it stopped; else the repeated id its migration would refuse.
  const refusal = errors[0] ?? (firstError ? errorFromProblem(firstError) : undefined);
  return {
    dir: path,
    id,
    status: firstError ? 'damaged' : turn ? 'turn-refused' : 'ok',
    problems,
    batches: 0,
    events: { total: loaded, byKind: loaded > 0 ? { 'message/complete': loaded } : {} },
    payloadRefs: 0,
    contentFiles: [],
    tornTail: null,
    durableEnd: 0,
    lastSequence: loaded,
    writerGeneration: 0,
    firstCommitAt: startedAt,
    lastCommitAt: jsonlMetaTime(declared?.updated_at) ?? goTime(stats.mtime),
    projection,
    tornEvidence: [],
    lockFiles: [],
    ...(declared?.workspace_root ? { declaredWorkspace: declared.workspace_root } : {}),
    ...(refusal ? { refusal } : {}),
    ...(through ? { readDigest: through.digest, readEnd: through.end } : {}),
  };
}

/** A run of a transcript's messages as Reasonix's migration makes them, with the lines they start on and what its loader said. */
export interface MigratedRun {
  /** The line each message starts on (a stand-in result's: its call's). */
  lines: number[];
  /** The messages, each with the id Reasonix gives it (docs/format.md §8.3). */
  messages: Record<string, unknown>[];
  /** Its tool calls in OpenAI's nested form, which Reasonix reads no name or arguments of. */
  flattened: Problem[];
  /** Where the loader stopped, in the last run: the messages before it are the run's. */
  errors: (EmptyTranscriptError | TranscriptLineError)[];
  /** A digest of the transcript's bytes through this run, and the offset after it. */
  through: string;
  end: number;
}

/**
 * The transcript's messages a run at a time (`transcriptFileRuns`), as Reasonix's migration makes them: converted,
 * repaired (`ImportRepairs`: a stand-in result is a message of its own) and given their ids. An assistant message
 * with calls is given with the run its results end in; what the last run holds back comes in a run of its own.
 */
export async function* migratedRuns(path: string, end?: number): AsyncGenerator<MigratedRun> {
  const nextId = legacyIdAssigner(branchIdOf(path));
  const repairs = new ImportRepairs<number>();
  const settled = (entries: ImportedMessage<number>[]) => ({
    lines: entries.map(({ place }) => place),
    messages: entries.map(({ message, written }) => nextId(message, written).message),
  });
  let last: MigratedRun | undefined;
  try {
    for await (const run of transcriptFileRuns(path, undefined, end)) {
      const flattened: Problem[] = [];
      const entries = run.lines.flatMap(({ value, line, text }) => {
        const { message, written, flattenedToolCalls } = goMessage(value, text);
        // Shown with their names and arguments, but Reasonix reads neither and its transcript gate then refuses.
        if (flattenedToolCalls > 0) {
          flattened.push({
            code: 'RX_EMPTY_TOOL_NAME',
            severity: 'warning',
            message: `line ${line}: ${flattenedToolCalls} tool call(s) in OpenAI's nested form: Reasonix 1.38.11 reads no name or arguments in them and refuses to resume (transcript gate)`,
            data: { file: path, line },
          });
        }
        return repairs.push({ message, written, place: line });
      });
      last = { ...settled(entries), flattened, errors: run.errors, through: run.through, end: run.end };
      yield last;
    }
    const held = repairs.finish();
    if (last && held.length > 0) yield { ...last, ...settled(held), flattened: [] };
  } catch (error) {
    throw fileSystemErrorOf(error, path);
  }
}
