import * as z from 'zod';
import {
  goBool,
  goInt,
  goObject,
  goPointer,
  goRaw,
  goSlice,
  goString,
  goStruct,
  type UnknownKeys,
} from '../../codec/go-json/go-decode.js';

/**
 * The provider message as Reasonix 1.38.11 decodes it (docs/format.md §7.2, §8.1): 39 fields, tool calls in
 * the flat form, and strict nested records. Built twice: strictly (any unknown key, at any depth,
 * makes the v4 reader refuse the whole session) and leniently (the JSONL loader drops unknown
 * keys but still refuses a value of the wrong type). Nested objects whose field lists are not
 * known (`image_inputs`, `thinking_blocks`, `interrupted_turn`, …) are accepted as any object.
 */
function messageSchemas(unknownKeys: UnknownKeys) {
  const struct = <S extends Record<string, z.ZodType>>(shape: S) => goStruct(shape, unknownKeys);
  // OpenAI's nested form: Reasonix's loader drops these keys (losing the call's name and
  // arguments); they are kept, whatever they hold, so that rxstore can flatten the call instead.
  const nestedForm: Record<string, z.ZodType> = unknownKeys === 'drop' ? { type: goRaw, function: goRaw } : {};
  const toolCall = struct({
    tool_recovery: goObject,
    write_intents: goSlice(goRaw),
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
  });
  const toolExecution = struct({
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
  });
  const decisionReceipt = struct({
    id: goString,
    kind: goString,
    tool: goString,
    subject: goString,
    outcome: goString,
  });
  const memoryCitation = struct({
    id: goString,
    source: goString,
    lineStart: goInt,
    lineEnd: goInt,
    note: goString,
    kind: goString,
  });
  const visionSummary = struct({
    version: goInt,
    prompt_version: goString,
    model_ref: goString,
    image_digests: goSlice(goString),
    summary: goString,
    created_at: goInt,
  });
  const message = struct({
    role: goString,
    id: goString,
    origin: goString,
    content: goString,
    raw_content: goString,
    provider_content: goString,
    images: goSlice(goString),
    image_inputs: goSlice(goObject),
    reasoning_content: goString,
    reasoning_id: goString,
    reasoning_status: goString,
    reasoning_signature: goString,
    reasoning_state: goString,
    thinking_blocks: goSlice(goObject),
    tool_calls: goSlice(toolCall),
    responses_items: goSlice(goRaw),
    server_search: goSlice(goObject),
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
    interrupted_turn: goObject,
    final_readiness_recovery: goObject,
    protocol_recovery: goRaw,
    read_pause: goObject,
    tool_execution: goPointer(toolExecution),
    tool_run_state: goString,
    presented_files: goObject,
    read_result: goRaw,
    tool_diagnostic: goRaw,
    read_completion: goObject,
    mcp_app: goObject,
    vision_summary: goPointer(visionSummary),
  });
  return { message, toolCall, toolExecution };
}

const strict = messageSchemas('refuse');
const lenient = messageSchemas('drop');

/** A message as the v4 reader decodes it: unknown keys refused at any depth. */
export const StrictMessageSchema = strict.message;
export const StrictToolCallSchema = strict.toolCall;
export const StrictToolExecutionSchema = strict.toolExecution;
/** A message as the JSONL loader decodes it: unknown keys dropped, wrong types refused. */
export const LenientMessageSchema = lenient.message;
