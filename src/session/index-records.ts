import { flatToolCall, parseJsonObject, type Message } from './message.js';
import type { TimedMessage } from './views.js';

/** What every indexed record carries, so a search hit can be traced back to its session. */
export interface RecordContext {
  sessionId: string;
  workspace: string | null;
  title: string | null;
}

interface RecordBase extends RecordContext {
  /** ISO time of the message the record comes from (the inspect rules: createdAt, else commit time). */
  time: string;
  messageId?: string;
}

/**
 * How a tool call ended, as its result's `tool_execution` records it: `state` (`completed`, `failed`,
 * `cancelled`, …), the shell's `exitCode` (0 included) and `durationMs`. A field the store does not
 * hold is absent; a call with no result yet has none of them.
 */
interface ToolOutcome {
  state?: string;
  exitCode?: number;
  durationMs?: number;
}

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

/** What the result's execution record says of how the call ended. */
function outcomeOf(result: Message | undefined): ToolOutcome {
  const execution = result?.tool_execution;
  if (!execution) return {};
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

/**
 * The records an indexer stores for a session: what the person typed (`raw_content`) and what the
 * assistant answered, each shell command with its exit code and output, and each file a tool read
 * or changed — edits with the replaced and the new span. System prompts and host-authored
 * messages are not indexed.
 */
export function indexRecords(transcript: TimedMessage[], context: RecordContext): IndexRecord[] {
  const results = new Map<string, Message>();
  for (const { message } of transcript) if (message.role === 'tool' && message.tool_call_id) results.set(message.tool_call_id, message);
  const records: IndexRecord[] = [];
  for (const { message, time } of transcript) {
    const base: RecordBase = { ...context, time: new Date(time).toISOString(), ...(message.id ? { messageId: message.id } : {}) };
    if (message.local_only || message.origin === 'host') continue;
    if (message.role === 'user' || message.role === 'assistant') {
      const said = message.raw_content || (message.content ?? '');
      if (said.trim() !== '') records.push({ ...base, type: 'message', role: message.role, text: said });
    }
    for (const call of (message.tool_calls ?? []).map(flatToolCall)) {
      const args: Args = parseJsonObject(call.arguments) ?? {};
      const result = results.get(call.id);
      const file = (action: Extract<IndexRecord, { type: 'file' }>['action'], extra: Partial<Extract<IndexRecord, { type: 'file' }>> = {}) =>
        records.push({ ...base, type: 'file', tool: call.name, action, path: firstText(args, 'path', 'file_path', 'notebook_path', 'source'), ...extra, ...outcomeOf(result) });
      switch (call.name) {
        case 'read_file':
          file('read');
          break;
        case 'write_file':
          file('write');
          break;
        case 'edit_file':
          file('edit', { edits: [{ old: text(args.old_string), new: text(args.new_string) }] });
          break;
        case 'multi_edit': {
          const edits = Array.isArray(args.edits) ? (args.edits as Args[]) : [];
          file('edit', { edits: edits.map((edit) => ({ old: text(edit.old_string), new: text(edit.new_string) })) });
          break;
        }
        case 'notebook_edit':
          file('notebook-edit');
          break;
        case 'delete_range':
          file('delete-range', { removedLines: failed(result) ? [] : removedLines(result?.content ?? '') });
          break;
        case 'delete_symbol':
          file('delete-symbol');
          break;
        case 'move_file':
          file('move', { path: firstText(args, 'source', 'from', 'path'), destination: firstText(args, 'destination', 'to', 'target') });
          break;
        default:
          if (SHELL_TOOLS.has(call.name)) {
            records.push({
              ...base,
              type: 'command',
              tool: call.name,
              command: firstText(args, 'command', 'script'),
              ...outcomeOf(result),
              output: result?.raw_content || (result?.content ?? ''),
            });
          }
      }
    }
  }
  return records;
}
