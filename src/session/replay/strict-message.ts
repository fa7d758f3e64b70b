import * as z from 'zod';
import {
  goArray,
  goBool,
  goInt,
  goMap,
  goPointer,
  goRaw,
  goRawMessage,
  goSlice,
  goString,
  goStruct,
  goUint,
  sameGoType,
  type UnknownKeys,
} from '../../codec/go-json/go-decode.js';

/**
 * The provider message as Reasonix 1.38.11 decodes it (docs/format.md §7.2, §8.1): 39 fields, tool calls in
 * the flat form, and strict nested records. Built twice: strictly (any unknown key, at any depth,
 * makes the v4 reader refuse the whole session) and leniently (the JSONL loader drops unknown
 * keys but still refuses a value of the wrong type). The nested structs' fields are the binary's own: a
 * Go binary keeps each decoded type's fields, their Go types and JSON names, and each was tried with
 * the binary (test/reasonix/reads/nested-message-fields-match-reasonix).
 */
function messageSchemas(unknownKeys: UnknownKeys) {
  const struct: StructOf = (shape, alwaysWritten) => goStruct(shape, unknownKeys, alwaysWritten);
  // OpenAI's nested form: Reasonix's loader drops these keys (losing the call's name and
  // arguments); they are kept, whatever they hold, so that rxstore can flatten the call instead.
  const nestedForm: Record<string, z.ZodType> = unknownKeys === 'drop' ? { type: goRaw, function: goRaw } : {};
  // Behind z.lazy: rare in a log, they are checked by their own schemas rather than compiled into the message's
  // check, whose compiling every command that reads a log pays for (twice the time with them inside).
  const { toolCallRecord, interruptedTurn, finalReadinessRecovery, readPause, readCompletion } = lazily(
    recoverySchemas(struct),
  );
  const { presentedFiles, mcpApp, imageInput, thinkingBlock, serverSearchCall } = lazily(presentationSchemas(struct));
  const toolCall = struct(
    {
      tool_recovery: goPointer(toolCallRecord),
      write_intents: goSlice(goRawMessage),
      id: goString,
      name: goString,
      arguments: goString,
      thought_signature: goString,
      diff: goString,
      added: goInt,
      removed: goInt,
      resolved_name: goString,
      capability_id: goString,
      resolved_read_only: goPointer(goBool),
      ...nestedForm,
    },
    ['id', 'name', 'arguments'],
  );
  const toolExecution = struct(
    {
      kind: goString,
      shell: goString,
      shellVersion: goString,
      platform: goString,
      supportsAndAnd: goBool,
      state: goString,
      failurePhase: goString,
      exitCode: goPointer(goInt),
      outputTail: goString,
      mutationRisk: goString,
      verification: goString,
      durationMs: goInt,
    },
    ['supportsAndAnd'],
  );
  const decisionReceipt = struct(
    { id: goString, kind: goString, tool: goString, subject: goString, outcome: goString },
    ['id', 'kind', 'outcome'],
  );
  const memoryCitation = struct(
    { id: goString, source: goString, lineStart: goInt, lineEnd: goInt, note: goString, kind: goString },
    ['source'],
  );
  const visionSummary = struct(
    {
      version: goInt,
      prompt_version: goString,
      model_ref: goString,
      image_digests: goSlice(goString),
      summary: goString,
      created_at: goInt,
    },
    ['version', 'prompt_version', 'model_ref', 'image_digests', 'summary', 'created_at'],
  );
  const message = struct(
    {
      role: goString,
      id: goString,
      origin: goString,
      content: goString,
      raw_content: goString,
      provider_content: goString,
      images: goSlice(goString),
      image_inputs: goSlice(imageInput),
      reasoning_content: goString,
      reasoning_id: goString,
      reasoning_status: goString,
      reasoning_signature: goString,
      reasoning_state: goString,
      thinking_blocks: goSlice(thinkingBlock),
      tool_calls: goSlice(toolCall),
      responses_items: goSlice(goRawMessage),
      server_search: goSlice(serverSearchCall),
      tool_call_id: goString,
      name: goString,
      memoryCitations: goSlice(memoryCitation),
      workDurationMs: goInt,
      createdAt: goInt,
      edited: goBool,
      original: goString,
      local_only: goBool,
      decision_receipt: goPointer(decisionReceipt),
      // Pointers: a null element stays nil, and Reasonix shows no notice for it.
      decision_receipts: goSlice(goPointer(decisionReceipt)),
      interrupted_turn: goPointer(interruptedTurn),
      final_readiness_recovery: goPointer(finalReadinessRecovery),
      protocol_recovery: goRawMessage,
      read_pause: goPointer(readPause),
      tool_execution: goPointer(toolExecution),
      tool_run_state: goString,
      presented_files: goPointer(presentedFiles),
      read_result: goRawMessage,
      tool_diagnostic: goRawMessage,
      read_completion: goPointer(readCompletion),
      mcp_app: goPointer(mcpApp),
      vision_summary: goPointer(visionSummary),
    },
    ['role'],
  );
  return { message, toolCall, toolExecution };
}

/** Each schema of `schemas` behind `z.lazy`. */
function lazily<S extends Record<string, z.ZodType>>(schemas: S): { [K in keyof S]: z.ZodLazy<S[K]> } {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [
      name,
      sameGoType(
        z.lazy(() => schema),
        schema,
      ),
    ]),
  ) as {
    [K in keyof S]: z.ZodLazy<S[K]>;
  };
}

/** A Go struct of the fields of `shape`, in Go's order, `alwaysWritten` those without `omitempty`. */
type StructOf = <S extends Record<string, z.ZodType>>(
  shape: S,
  alwaysWritten: readonly (keyof S & string)[],
) => ReturnType<typeof goStruct<S, UnknownKeys>>;

/**
 * A Go `[2]int` (a range of lines): Go decodes a JSON list of any length into it, leaving the missing elements
 * 0 and skipping the extra ones. Checked as a list of whole numbers, which is what Reasonix writes.
 */
const goRange = goArray(goInt, 2);

/**
 * What Reasonix keeps to recover a turn: a call's run, an interrupted turn, reads paused and completed. Each
 * struct's fields are in Go's order, those written even when empty (no `omitempty`) named after them.
 */
function recoverySchemas(struct: StructOf) {
  // A value struct, not a pointer: `null` is its zero value, as a struct's is.
  const identity = struct(
    {
      session_id: goString,
      turn_id: goString,
      attempt_id: goString,
      call_id: goString,
      canonical_tool: goString,
      argument_digest: goString,
      resource_scope: goString,
    },
    [],
  );
  const toolCallRecord = struct(
    {
      identity,
      arguments: goRawMessage,
      state: goString,
      read_only: goBool,
      idempotency_key: goString,
      started_at: goInt,
      finished_at: goInt,
      result_digest: goString,
      effect_summary: goString,
      resolution: goString,
      resolved_at: goInt,
      resolution_source: goString,
      inspection_id: goString,
      inspection_state: goString,
      superseded_by: goString,
    },
    ['identity', 'state', 'read_only'],
  );
  const toolSummary = struct({ id: goString, name: goString, files: goSlice(goString), added: goInt, removed: goInt }, [
    'name',
  ]);
  const failureDiagnostic = struct(
    {
      kind: goString,
      status: goInt,
      traceId: goString,
      providerId: goString,
      providerDisplayName: goString,
      protocol: goString,
      requestPath: goString,
    },
    ['kind'],
  );
  const writeCheck = struct({ call_id: goString, path: goString, state: goString }, ['call_id', 'path', 'state']);
  const interruptedTurn = struct(
    {
      turn_id: goString,
      attempt_id: goString,
      cause: goString,
      terminalStatus: goString,
      failureDiagnostic: goPointer(failureDiagnostic),
      write_checks: goSlice(writeCheck),
      satisfied_writes: goSlice(toolSummary),
      pending: goBool,
      completed_tools: goSlice(toolSummary),
      failed_tools: goSlice(toolSummary),
      user_confirmed_tools: goSlice(toolSummary),
      interrupted_tools: goSlice(goString),
      not_started_tools: goSlice(toolSummary),
      unknown_tools: goSlice(toolSummary),
      tool_calls: goSlice(toolCallRecord),
      requires_user_decision: goBool,
      silent_interruption: goBool,
      dropped_partial_text: goBool,
      dropped_partial_reasoning: goBool,
    },
    [],
  );
  const finalReadinessRecovery = struct({ pending: goBool, missing: goSlice(goString), checkpoint: goRawMessage }, []);
  // A paused read's id is `readId`, a completed one's `read_id`: each spelling is refused in the other.
  const pausedRead = struct(
    {
      snapshot: goString,
      readId: goString,
      path: goString,
      intent: goString,
      covered: goSlice(goRange),
      missing: goSlice(goRange),
      reason: goString,
    },
    ['readId', 'path', 'reason'],
  );
  const readPause = struct({ code: goString, id: goString, reads: goSlice(pausedRead), omitted: goInt }, [
    'id',
    'reads',
  ]);
  const completedRead = struct(
    {
      read_id: goString,
      path: goString,
      snapshot: goString,
      intent: goString,
      verdict: goString,
      covered: goSlice(goRange),
      source_end: goPointer(goInt),
    },
    ['read_id', 'path', 'intent', 'verdict', 'covered'],
  );
  const readCompletion = struct({ id: goString, reads: goSlice(completedRead), omitted: goInt }, ['id', 'reads']);
  return { toolCallRecord, interruptedTurn, finalReadinessRecovery, readPause, readCompletion };
}

/** What a message shows besides its text: files presented, an MCP app, images, thinking, server searches. */
function presentationSchemas(struct: StructOf) {
  const presentedFile = struct({ path: goString, description: goString }, ['path']);
  const presentedFiles = struct({ version: goInt, files: goSlice(presentedFile) }, ['version', 'files']);
  const mcpApp = struct(
    {
      server: goString,
      tool: goString,
      generation: goUint,
      resourceUri: goString,
      // A Go map[string][]string: any key.
      csp: goMap(goSlice(goString)),
      rawResult: goRawMessage,
      structured: goRawMessage,
    },
    ['server', 'tool', 'generation'],
  );
  // A value struct: `null` is its zero value.
  const contentRef = struct(
    {
      digest: goString,
      bytes: goInt,
      mediaType: goString,
      name: goString,
      indexDigest: goString,
      integrityBlockBytes: goInt,
    },
    ['digest', 'bytes'],
  );
  const attachment = struct({ v: goInt, content: contentRef, width: goInt, height: goInt, name: goString }, [
    'v',
    'content',
  ]);
  const imageInput = struct({ kind: goString, attachment: goPointer(attachment), url: goString, filesId: goString }, [
    'kind',
  ]);
  const thinkingBlock = struct({ type: goString, thinking: goString, signature: goString, data: goString }, ['type']);
  const searchHit = struct({ title: goString, url: goString }, []);
  const serverSearchCall = struct(
    { sources_status: goString, id: goString, query: goString, results: goSlice(searchHit), raw: goRawMessage },
    ['id'],
  );
  return { presentedFiles, mcpApp, imageInput, thinkingBlock, serverSearchCall };
}

const strict = messageSchemas('refuse');
const lenient = messageSchemas('drop');

/** A message as the v4 reader decodes it: unknown keys refused at any depth. */
export const StrictMessageSchema = strict.message;
export const StrictToolCallSchema = strict.toolCall;
export const StrictToolExecutionSchema = strict.toolExecution;
/** A message as the JSONL loader decodes it: unknown keys dropped, wrong types refused. */
export const LenientMessageSchema = lenient.message;
