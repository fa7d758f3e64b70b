import { flatToolCall, isJsonObjectText } from './message.js';
import type { Projection } from './projection.js';
import { promoteWarnings, type CodeOf, type Severity } from '../../errors/index.js';

/** Tool results pruned by older Reasonix builds begin with this marker. */
export const LEGACY_PRUNE_MARKER = '[elided tool result — ';

/**
 * Something that makes a session load or compact badly: a `warning`, or a `note` for what is only
 * worth knowing (a compaction, a result an older Reasonix pruned). Under `strict`, warnings are errors.
 */
export interface HygieneFinding {
  code: CodeOf<'finding'>;
  severity: Severity;
  message: string;
  messageId?: string;
}

/** Every hygiene finding of a session. */
export interface Hygiene {
  findings: HygieneFinding[];
  /** Whether the session holds anything beyond its system prompt. */
  hasContent: boolean;
  /** Sequences of compaction checkpoints (`model/context-replace`, `compaction`). */
  compactions: number[];
  /** Turns that ended `interrupted` or `failed`, or never ended. */
  interruptedTurns: string[];
}

/** Whether the replay `checkHygiene` looks at stopped at damage. */
export interface HygieneOptions {
  /**
   * The replay stopped at damage (the session is refused): what is unfinished at that point is a
   * consequence of the cut, not a finding — the damage itself is the problem reported.
   */
  cutByDamage?: boolean;
  /** Every warning is an error (`inspect --strict`). */
  strict?: boolean | undefined;
}

/**
 * The things that make a session load or compact badly in Reasonix, read off its transcript:
 * tool calls without names, without results or with cut-off arguments, a missing system prompt
 * (Reasonix refuses to snapshot such a session), pruned results, checkpoints and broken turns.
 */
export function checkHygiene(projection: Projection, options: HygieneOptions = {}): Hygiene {
  const findings: HygieneFinding[] = [];
  const messages = projection.transcript.map((entry) => entry.message);
  const answered = new Set(messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id ?? ''));
  // Reading stopped at damage: a turn still open there, and the calls made in it, may well end past it.
  const openAtCut = options.cutByDamage ? projection.openTurns() : [];
  const cutFrom = options.cutByDamage ? projection.openFrom() : Number.POSITIVE_INFINITY;
  for (const { message, seq } of projection.transcript) {
    const id = message.id !== undefined ? { messageId: message.id } : {};
    for (const call of (message.tool_calls ?? []).map(flatToolCall)) {
      if (call.name.trim() === '') findings.push({ code: 'RX_EMPTY_TOOL_NAME', severity: 'warning', message: `tool call ${call.id || '(no id)'} has an empty name`, ...id });
      if (!answered.has(call.id) && seq < cutFrom) findings.push({ code: 'RX_DANGLING_TOOL_CALL', severity: 'warning', message: `tool call ${call.id || '(no id)'} (${call.name}) has no tool result`, ...id });
      if (call.arguments !== '' && !isJsonObjectText(call.arguments)) {
        findings.push({ code: 'RX_TRUNCATED_ARGUMENTS', severity: 'warning', message: `tool call ${call.id || '(no id)'} (${call.name}) has arguments that are not a complete JSON object`, ...id });
      }
    }
    if (message.role === 'tool' && (message.content ?? '').startsWith(LEGACY_PRUNE_MARKER)) {
      findings.push({ code: 'RX_PRUNED_TOOL_RESULT', severity: 'note', message: `tool result ${message.tool_call_id ?? ''} was pruned by an older Reasonix`, ...id });
    }
  }
  if (messages.length > 0 && messages[0]!.role !== 'system') {
    findings.push({ code: 'RX_NO_SYSTEM_MESSAGE', severity: 'warning', message: 'the session has no leading system message: Reasonix resumes it without a system prompt and refuses to snapshot it' });
  }
  const interruptedTurns = [...projection.turns.values()].filter((turn) => turn.status !== 'completed' && !openAtCut.includes(turn)).map((turn) => turn.turnId);
  for (const turnId of interruptedTurns) {
    const status = projection.turns.get(turnId)!.status;
    findings.push({ code: 'RX_INTERRUPTED_TURN', severity: 'warning', message: `turn ${turnId} ${status === 'in_progress' ? 'never ended' : `ended ${status}`}` });
  }
  for (const seq of projection.compactions) {
    findings.push({ code: 'RX_COMPACTED', severity: 'note', message: `compaction checkpoint at sequence ${seq}: the model is sent a summary, the transcript keeps every message` });
  }
  return {
    findings: promoteWarnings(findings, options.strict),
    hasContent: messages.some((message) => message.role !== 'system'),
    compactions: projection.compactions,
    interruptedTurns,
  };
}
