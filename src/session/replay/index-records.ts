import { flatToolCall, messageText, parseJsonObject, type Message } from './message.js';
import type { TimedMessage } from './views.js';

/** What every indexed record carries, so a search hit can be traced back to its session. */
export interface RecordContext {
  sessionId: string;
  workspace: string | null;
  title: string | null;
}

/** What every index record carries: the session, its workspace and title, the message it came from. */
export interface RecordBase extends RecordContext {
  /** ISO time of the message the record comes from (the inspect rules: createdAt, else commit time). */
  time: string;
  messageId?: string;
}

/**
 * How a tool call ended, as its result's `tool_execution` records it: `state` (`completed`, `failed`,
 * `cancelled`, …), the shell's `exitCode` (0 included) and `durationMs`; a result without one (file
 * tools) gives `state` from whether it reports an error. A call with no result has none of them.
 */
export interface ToolOutcome {
  state?: string;
  exitCode?: number;
  durationMs?: number;
}

/** One record for a search index: a user prompt, an answer, a command with its output and exit code, a file edit, … */
export type IndexRecord =
  | (RecordBase & { type: 'message'; role: 'user' | 'assistant'; text: string })
  | (RecordBase & ToolOutcome & { type: 'command'; tool: string; command: string; output: string })
  | (RecordBase & ToolOutcome & {
      type: 'file';
      tool: string;
      action: 'read' | 'write' | 'edit' | 'notebook-edit' | 'delete-range' | 'delete-symbol' | 'move';
      path: string;
      /** Edits: the span replaced and what replaced it. */
      edits?: { old: string; new: string }[];
      /** delete_range: the lines removed, read from the unified diff in its result. */
      removedLines?: string[];
      destination?: string;
    });

const SHELL_TOOLS = new Set(['bash', 'pwsh', 'powershell']);

type Args = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : '');
const firstText = (args: Args, ...names: string[]) => names.map((name) => text(args[name])).find((value) => value !== '') ?? '';


/** A tool result that reports failure: its execution state, or the error text Reasonix writes. */
function failed(result: Message | undefined): boolean {
  if (!result) return true;
  return result.tool_execution?.state === 'failed' || /^error[:\s]/i.test(result.content ?? '');
}

/**
 * How the call ended: what the result's execution record says (`state`, `exitCode`, `durationMs`);
 * a result without one (file tools) is `failed` when it reports an error, as Reasonix words it,
 * else `completed`. No result, no outcome.
 */
function outcomeOf(result: Message | undefined): ToolOutcome {
  if (!result) return {};
  const execution = result.tool_execution;
  if (!execution) return { state: failed(result) ? 'failed' : 'completed' };
  return {
    ...(execution.state !== undefined ? { state: execution.state } : {}),
    ...(typeof execution.exitCode === 'number' ? { exitCode: execution.exitCode } : {}),
    ...(execution.durationMs !== undefined ? { durationMs: execution.durationMs } : {}),
  };
}

/** The `-` lines of a unified diff, without the `---` file header. */
function removedLines(diff: string): string[] {
  return diff
    .split('\n')
    .filter((line) => line.startsWith('-') && !line.startsWith('---'))
    .map((line) => line.slice(1));
}

/** A tool call as its assistant message holds it, waiting for the result that completes its record. */
export interface RecordedCall {
  call: { id: string; name: string; arguments: string };
  /** The record fields of the message the call belongs to. */
  base: RecordBase;
}

/** What a message says (its record, when it is indexed) and the tool calls it makes. */
export function recordsOfMessage(message: Message, time: number, context: RecordContext): { said: IndexRecord | undefined; calls: RecordedCall[] } {
  if (message.local_only || message.origin === 'host') return { said: undefined, calls: [] };
  const base: RecordBase = { ...context, time: new Date(time).toISOString(), ...(message.id ? { messageId: message.id } : {}) };
  let said: IndexRecord | undefined;
  if (message.role === 'user' || message.role === 'assistant') {
    const text = messageText(message);
    if (text.trim() !== '') said = { ...base, type: 'message', role: message.role, text };
  }
  return { said, calls: (message.tool_calls ?? []).map((call) => ({ call: flatToolCall(call), base })) };
}

/**
 * The record of a tool call, completed by its result (undefined while none is known): a shell
 * command with its outcome and output, or the file a tool read or changed; undefined for other tools.
 */
export function recordOfCall({ call, base }: RecordedCall, result: Message | undefined): IndexRecord | undefined {
  const args: Args = parseJsonObject(call.arguments) ?? {};
  const file = (action: Extract<IndexRecord, { type: 'file' }>['action'], extra: Partial<Extract<IndexRecord, { type: 'file' }>> = {}): IndexRecord => ({
    ...base,
    type: 'file',
    tool: call.name,
    action,
    path: firstText(args, 'path', 'file_path', 'notebook_path', 'source'),
    ...extra,
    ...outcomeOf(result),
  });
  switch (call.name) {
    case 'read_file':
      return file('read');
    case 'write_file':
      return file('write');
    case 'edit_file':
      return file('edit', { edits: [{ old: text(args.old_string), new: text(args.new_string) }] });
    case 'multi_edit': {
      const edits = Array.isArray(args.edits) ? (args.edits as Args[]) : [];
      return file('edit', { edits: edits.map((edit) => ({ old: text(edit.old_string), new: text(edit.new_string) })) });
    }
    case 'notebook_edit':
      return file('notebook-edit');
    case 'delete_range':
      return file('delete-range', { removedLines: failed(result) ? [] : removedLines(result?.content ?? '') });
    case 'delete_symbol':
      return file('delete-symbol');
    case 'move_file':
      return file('move', { path: firstText(args, 'source', 'from', 'path'), destination: firstText(args, 'destination', 'to', 'target') });
    default:
      if (!SHELL_TOOLS.has(call.name)) return undefined;
      return {
        ...base,
        type: 'command',
        tool: call.name,
        command: firstText(args, 'command', 'script'),
        ...outcomeOf(result),
        output: result ? messageText(result) : '',
      };
  }
}

/**
 * The records an indexer stores for a session: what the person typed (`raw_content`) and what the
 * assistant answered, each shell command with its outcome and output, and each file a tool read
 * or changed — edits with the replaced and the new span — each call paired with its result
 * wherever that was committed. System prompts and host-authored messages are not indexed.
 */
export function indexRecords(transcript: TimedMessage[], context: RecordContext, options: { unansweredFrom?: number } = {}): IndexRecord[] {
  // Each call takes the first result with its id that follows it: an id used again by a later call
  // (which Reasonix refuses, after what precedes it) never lends that call an earlier call's output.
  const results = new Map<string, { at: number; message: Message }[]>();
  transcript.forEach(({ message }, at) => {
    if (message.role !== 'tool' || !message.tool_call_id) return;
    const queue = results.get(message.tool_call_id) ?? [];
    queue.push({ at, message });
    results.set(message.tool_call_id, queue);
  });
  const resultAfter = (id: string, at: number): Message | undefined => {
    const queue = results.get(id);
    while (queue && queue.length > 0 && queue[0]!.at <= at) queue.shift();
    return queue?.shift()?.message;
  };
  const records: IndexRecord[] = [];
  for (const [at, { message, time, seq }] of transcript.entries()) {
    const { said, calls } = recordsOfMessage(message, time, context);
    if (said) records.push(said);
    for (const recorded of calls) {
      const result = resultAfter(recorded.call.id, at);
      // Reading stopped at damage inside this call's turn: its result may lie past it, so no record pretends it has none.
      if (!result && seq >= (options.unansweredFrom ?? Number.POSITIVE_INFINITY)) continue;
      const record = recordOfCall(recorded, result);
      if (record) records.push(record);
    }
  }
  return records;
}
