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
import { readableOrThrow, readJsonFile } from '../../session/reading/read-json-file.js';
import type { SessionRead } from '../../session/verdict/read-session.js';
import { blockedSidecar, branchIdOf } from './jsonl-sidecars.js';
import { goMessage } from './jsonl-message.js';
import { jsonlMetaTitle, JsonlMetaSchema } from './jsonl-meta.js';
import { transcriptFileRuns } from './jsonl-transcript.js';
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
  options: Pick<ProjectionOptions, 'keep' | 'previews'> = {},
): Promise<SessionRead> {
  const id = branchIdOf(path);
  const [stats, meta] = await onFileSystem(
    Promise.all([stat(path), readJsonFile(`${path}.meta`, JsonlMetaSchema).then(readableOrThrow)]),
    path,
  );
  const startedAt = meta.state === 'ok' ? meta.value.created_at : stats.mtime.toISOString();
  const projection = new Projection({
    ...(meta.state === 'ok' ? { title: jsonlMetaTitle(meta.value) } : {}),
    keep: options.keep,
    previews: options.previews,
  });
  const nextId = legacyIdAssigner(id);
  const flattened: Problem[] = [];
  const strict: Problem[] = [];
  let errors: (EmptyTranscriptError | TranscriptLineError)[] = [];
  let loaded = 0;
  try {
    for await (const run of transcriptFileRuns(path)) {
      // The loader stops at its first error: the run's lines are the messages before it, what was verified.
      const messages = run.lines.map(({ value, line }) => {
        const { message, flattenedToolCalls } = goMessage(value);
        // Shown with their names and arguments, but Reasonix reads neither and its transcript gate then refuses.
        if (flattenedToolCalls > 0) {
          flattened.push({
            code: 'RX_EMPTY_TOOL_NAME',
            severity: 'warning',
            message: `line ${line}: ${flattenedToolCalls} tool call(s) in OpenAI's nested form: Reasonix 1.38.11 reads no name or arguments in them and refuses to resume (transcript gate)`,
            data: { file: path, line },
          });
        }
        return nextId(message);
      });
      const found = projection.strictness.length;
      projection.replayTranscript(messages, startedAt);
      // Reasonix migrates what it loaded into v4 message/complete events: a message id used twice is refused there.
      for (const finding of projection.strictness.slice(found)) {
        const line = run.lines[finding.seq - 1 - loaded]?.line;
        strict.push({
          code: 'RX_STRICT_PAYLOAD',
          severity: 'error',
          message: `Reasonix 1.38.11 would refuse: invalid message/complete payload at ${finding.seq}: ${finding.message}`,
          data: { file: path, ...(line !== undefined ? { line } : {}) },
        });
      }
      loaded += messages.length;
      errors = run.errors;
    }
  } catch (error) {
    throw fileSystemErrorOf(error, path);
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
    lastCommitAt: meta.state === 'ok' ? meta.value.updated_at : goTime(stats.mtime),
    projection,
    tornEvidence: [],
    lockFiles: [],
    ...(meta.state === 'ok' && meta.value.workspace_root ? { declaredWorkspace: meta.value.workspace_root } : {}),
    ...(refusal ? { refusal } : {}),
  };
}
