import { jsonText } from '../codec/go-json/json-text.js';
import { messageText, parseJsonObject, ToolExecutionSchema, type Message } from '../session/replay/message.js';
import { diffLines, type DiffLine } from './edit-diff.js';

/** A tool call as a page shows it: what was asked, what came back, and the files it changed. */
export interface ToolCallView {
  name: string;
  /** What the call is about, on one line: the command, the path. */
  target: string;
  /** The arguments, pretty-printed when they are a JSON object. */
  arguments: string;
  /** Edits as diffs of the old and new spans; a written file as added lines. */
  edits: { path: string; lines: DiffLine[] }[];
  result?: ToolResultView;
}

export interface ToolResultView {
  text: string;
  /** The text's size in UTF-8 bytes: the size a page says an output has. */
  bytes: number;
  /** The size of the JSON payload kept in the content store (a payloadRef: a large output); null when inline. */
  storedBytes: number | null;
  exitCode?: number;
  /** `completed`, `failed`, … as Reasonix recorded the run. */
  state?: string;
  durationMs?: number;
  failed: boolean;
}

/**
 * Arguments nested deeper are shown as sent: indenting every level makes text that grows with the
 * square of the depth (10,000 levels, which Reasonix reads, would be 200 MB for a page that shows 200 lines).
 */
const PRETTY_DEPTH = 64;

/** How deep the arrays and objects of a JSON text nest, by one pass over its characters (no recursion). */
function nestingDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let at = 0; at < json.length; at += 1) {
    const character = json[at];
    if (inString) {
      if (character === '\\') at += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '{' || character === '[') deepest = Math.max(deepest, ++depth);
    else if (character === '}' || character === ']') depth -= 1;
  }
  return deepest;
}

const SHELL_TOOLS = new Set(['bash', 'pwsh', 'powershell']);
const TARGET_CHARS = 160;

type Args = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * A call and its result message (if one was recorded). `eventDurationMs` is the duration the
 * call's `tool/result` event gives, used where the result itself has none.
 */
export function toolCallView(
  call: { name: string; arguments: string },
  result: { message: Message; storedBytes: number | null } | undefined,
  eventDurationMs?: number,
): ToolCallView {
  const args: Args | undefined = parseJsonObject(call.arguments);
  return {
    name: call.name || '(unnamed tool)',
    target: oneLine(targetOf(call.name, args ?? {})),
    arguments: args && nestingDepth(call.arguments) <= PRETTY_DEPTH ? jsonText(args, 2) : call.arguments,
    edits: args ? editsOf(call.name, args) : [],
    ...(result ? { result: resultView(result, eventDurationMs) } : {}),
  };
}

function resultView(
  { message, storedBytes }: { message: Message; storedBytes: number | null },
  eventDurationMs: number | undefined,
): ToolResultView {
  const execution = ToolExecutionSchema.safeParse(message.tool_execution ?? {});
  const facts = execution.success ? execution.data : {};
  const runState = typeof message.tool_run_state === 'string' ? message.tool_run_state : undefined;
  const state = facts.state ?? runState;
  const exitCode = typeof facts.exitCode === 'number' ? facts.exitCode : undefined;
  const durationMs =
    facts.durationMs ?? (eventDurationMs !== undefined && eventDurationMs > 0 ? eventDurationMs : undefined);
  const output = messageText(message);
  return {
    text: output,
    bytes: Buffer.byteLength(output),
    storedBytes,
    ...(exitCode !== undefined ? { exitCode } : {}),
    ...(state !== undefined ? { state } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
    failed: state === 'failed' || (exitCode !== undefined && exitCode !== 0),
  };
}

function targetOf(name: string, args: Args): string {
  if (SHELL_TOOLS.has(name)) return text(args.command) || text(args.script);
  const path = text(args.path) || text(args.file_path) || text(args.notebook_path);
  if (name === 'move_file')
    return `${text(args.source) || text(args.from) || path} → ${text(args.destination) || text(args.to) || text(args.target)}`;
  if (path) return path;
  // Any other tool: its first string argument says most about it (a query, a pattern, a URL).
  return (
    Object.values(args)
      .map(text)
      .find((value) => value !== '') ?? ''
  );
}

function editsOf(name: string, args: Args): ToolCallView['edits'] {
  const path = text(args.path) || text(args.file_path);
  switch (name) {
    case 'edit_file':
      return [{ path, lines: diffLines(text(args.old_string), text(args.new_string)) }];
    case 'multi_edit':
      return (Array.isArray(args.edits) ? (args.edits as unknown[]) : [])
        .filter((edit): edit is Args => typeof edit === 'object' && edit !== null)
        .map((edit) => ({ path, lines: diffLines(text(edit.old_string), text(edit.new_string)) }));
    case 'write_file':
      return [{ path, lines: diffLines('', text(args.content)) }];
    default:
      return [];
  }
}

function oneLine(value: string): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length <= TARGET_CHARS ? flat : `${flat.slice(0, TARGET_CHARS - 1)}…`;
}
