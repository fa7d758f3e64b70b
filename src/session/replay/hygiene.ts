import type { Projection } from './projection.js';
import { promoteWarnings, type CodeOf, type Severity } from '../../errors/index.js';

export { LEGACY_PRUNE_MARKER } from './transcript-index.js';

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
 * tool calls without names, without results, with cut-off arguments or made twice in one message, a missing system prompt
 * (Reasonix refuses to snapshot such a session), pruned results, checkpoints and broken turns.
 */
export function checkHygiene(projection: Projection, options: HygieneOptions = {}): Hygiene {
  const findings: HygieneFinding[] = [];
  const transcript = projection.transcriptIndex;
  const answered = transcript.answeredCalls();
  // Reading stopped at damage: a turn still open there, and the calls made in it, may well end past it.
  const cutFrom = options.cutByDamage ? projection.openFrom() : Number.POSITIVE_INFINITY;
  // Stryker disable next-line EqualityOperator: the row past the end has no calls and no flags
  for (let at = 0; at < transcript.length; at += 1) {
    const messageId = transcript.messageId(at);
    const id = messageId !== undefined ? { messageId } : {};
    const callsHere = new Set<string>();
    for (const call of transcript.toolCalls(at)) {
      const callId = transcript.callId(call.idRef);
      // Reasonix's transcript gate refuses to resume a message that makes two calls with one id.
      if (callId !== '' && callsHere.has(callId)) {
        findings.push({
          code: 'RX_DUPLICATE_CALL_ID',
          severity: 'warning',
          message: `tool call ${callId} (${call.name}) comes twice in one message`,
          ...id,
        });
      }
      callsHere.add(callId);
      if (call.name.trim() === '')
        findings.push({
          code: 'RX_EMPTY_TOOL_NAME',
          severity: 'warning',
          message: `tool call ${callId || '(no id)'} has an empty name`,
          ...id,
        });
      // Stryker disable next-line EqualityOperator: a message's sequence is never that of a turn/start event, the only sequences openFrom gives
      if (answered[call.idRef] !== 1 && transcript.seq(at) < cutFrom)
        findings.push({
          code: 'RX_DANGLING_TOOL_CALL',
          severity: 'warning',
          message: `tool call ${callId || '(no id)'} (${call.name}) has no tool result`,
          ...id,
        });
      // Reasonix's transcript gate refuses to resume a call whose arguments are not a JSON object, empty ones included.
      if (call.arguments !== 'object') {
        const what =
          call.arguments === 'none'
            ? 'empty arguments, not a JSON object'
            : 'arguments that are not a complete JSON object';
        findings.push({
          code: 'RX_TRUNCATED_ARGUMENTS',
          severity: 'warning',
          message: `tool call ${callId || '(no id)'} (${call.name}) has ${what}`,
          ...id,
        });
      }
    }
    if (transcript.pruned(at)) {
      findings.push({
        code: 'RX_PRUNED_TOOL_RESULT',
        severity: 'note',
        message: `tool result ${transcript.answeredCall(at)} was pruned by an older Reasonix`,
        ...id,
      });
    }
  }
  if (transcript.length > 0 && transcript.role(0) !== 'system') {
    findings.push({
      code: 'RX_NO_SYSTEM_MESSAGE',
      severity: 'warning',
      message:
        'the session has no leading system message: Reasonix resumes it without a system prompt and refuses to snapshot it',
    });
  }
  const interruptedTurns: string[] = [];
  for (const turn of projection.turns.values()) {
    // Open at a cut by damage: a consequence of the cut, not a finding.
    if (turn.status === 'completed' || (options.cutByDamage && turn.status === 'in_progress')) continue;
    interruptedTurns.push(turn.turnId);
    findings.push({
      code: 'RX_INTERRUPTED_TURN',
      severity: 'warning',
      message: `turn ${turn.turnId} ${turn.status === 'in_progress' ? 'never ended' : `ended ${turn.status}`}`,
    });
  }
  for (const seq of projection.compactions) {
    findings.push({
      code: 'RX_COMPACTED',
      severity: 'note',
      message: `compaction checkpoint at sequence ${seq}: the model is sent a summary, the transcript keeps every message`,
    });
  }
  let hasContent = false;
  for (let at = 0; at < transcript.length && !hasContent; at += 1) hasContent = transcript.role(at) !== 'system';
  return {
    findings: promoteWarnings(findings, options.strict),
    hasContent,
    compactions: [...projection.compactions],
    interruptedTurns,
  };
}
