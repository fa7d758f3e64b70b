import type { BatchToWrite, EventToWrite } from '../../src/codec/encode-batch.js';
import { seededRandom } from '../../test/support/seeded-random.js';
import { commandOutput, hex, messageId, prose, sourceListing, type Rng } from './text.js';

/**
 * Turns laid out as Reasonix 1.38.11 commits them (fixtures/tool-calls; driving-reasonix-offline.md):
 * turn/start; the admission of a host session-context message and the typed message; per model
 * round an attempt begin, a partial tool/call per call, the assistant message, an attempt commit,
 * then per call tool/call (pending), tool/start, tool/call (refreshed) and the tool message with
 * its tool/result; a final attempt with the answer; turn/end. One commit per batch, as Reasonix
 * writes them, so most raw bytes are record overhead and tool payloads, as in real logs.
 */
export class TurnPlan {
  private readonly rng: Rng;
  /** The sequence the next batch starts at. */
  private seq = 1;
  private turnNumber = 0;
  /** Commit time of the next batch, in unix milliseconds. */
  private clock = Date.UTC(2026, 10, 1, 9, 0, 0);
  private callNumber = 0;

  constructor(
    seed: number,
    private readonly workspace: string,
  ) {
    this.rng = seededRandom(seed);
  }

  /** Reasonix's first commit: the system prompt and the model (docs/format.md §7.5). */
  sessionCreate(): BatchToWrite {
    return this.batch('session-create', undefined, [
      complete({ role: 'system', id: this.id(), content: SYSTEM_PROMPT }),
      { kind: 'session/config', payload: { modelIdentity: '', modelRef: 'mock/mock-model' } },
    ]);
  }

  /** The batches of one more user turn. */
  nextTurn(): BatchToWrite[] {
    const rng = this.rng;
    this.turnNumber += 1;
    const turnId = `turn_${hex(rng, 32)}`;
    const runtime = (events: EventToWrite[], code: number) =>
      this.batch(`runtime:${turnId}:${this.seq}:${code}`, turnId, events);
    const batches: BatchToWrite[] = [runtime([{ kind: 'turn/start', payload: { status: 'in_progress' } }], 0)];
    const typed = `${prose(rng, 8 + rng.int(30))} (turn ${this.turnNumber})`;
    batches.push(
      this.batch(`messages:turn-admission:${this.seq}`, turnId, [
        complete({ role: 'user', id: this.id(), origin: 'host', content: sessionContext(this.workspace) }),
        complete({
          role: 'user',
          id: this.id(),
          origin: 'user',
          content: typed,
          raw_content: typed,
          createdAt: this.clock,
        }),
      ]),
    );
    const rounds = 1 + rng.int(3);
    for (let round = 0; round < rounds; round += 1) {
      const attemptId = this.id();
      batches.push(runtime([attempt('begin', attemptId)], 21));
      const calls = Array.from({ length: 1 + (rng.next() < 0.3 ? 1 : 0) }, () => this.toolCall());
      for (const call of calls) batches.push(runtime([toolCallEvent(call, { attemptId, partial: true })], 4));
      batches.push(
        this.batch(`messages:assistant-attempt:${this.seq}`, turnId, [
          complete({
            role: 'assistant',
            id: attemptId,
            ...(rng.next() < 0.5 ? { content: prose(rng, 5 + rng.int(20)) } : {}),
            reasoning_content: prose(rng, 40 + rng.int(200)),
            tool_calls: calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
            workDurationMs: 500 + rng.int(5000),
          }),
        ]),
      );
      batches.push(runtime([attempt('commit', attemptId)], 21));
      for (const call of calls) {
        batches.push(runtime([toolCallEvent(call, { runState: 'pending' })], 4));
        batches.push(runtime([{ kind: 'tool/start', payload: { id: call.id, name: call.name } }], 32));
        batches.push(runtime([toolCallEvent(call, { refreshed: true })], 4));
        batches.push(
          runtime(
            [complete(toolMessage(call, this.id())), { kind: 'tool/result', payload: toolResult(call, this.clock) }],
            5,
          ),
        );
      }
    }
    const answerId = this.id();
    batches.push(runtime([attempt('begin', answerId)], 21));
    batches.push(
      this.batch(`messages:assistant-attempt:${this.seq}`, turnId, [
        complete({
          role: 'assistant',
          id: answerId,
          content: prose(rng, 20 + rng.int(120)),
          workDurationMs: 300 + rng.int(3000),
        }),
      ]),
    );
    batches.push(runtime([attempt('commit', answerId)], 21));
    batches.push(
      this.batch(`turn-finalize:${turnId}`, turnId, [{ kind: 'turn/end', payload: { status: 'completed' } }]),
    );
    return batches;
  }

  private batch(operationId: string, turnId: string | undefined, events: EventToWrite[]): BatchToWrite {
    this.seq += events.length;
    this.clock += 250 + this.rng.int(2000);
    return { operationId, ...(turnId ? { turnId } : {}), createdAt: new Date(this.clock), events };
  }

  private id(): string {
    return messageId(this.rng, this.clock);
  }

  /** A tool call and the output it will get; about 1 in 50 outputs exceeds 64 KiB and goes to the content store. */
  private toolCall(): PlannedCall {
    const rng = this.rng;
    const id = `call_${hex(rng, 24)}`;
    this.callNumber += 1;
    const big = rng.next() < 0.02;
    const size = big ? 70_000 + rng.int(90_000) : rng.pick(OUTPUT_SIZES);
    const file = `src/${rng.pick(['codec', 'session', 'store', 'cli'])}/${prose(rng, 1)}-${this.callNumber % 97}.ts`;
    switch (rng.pick(['read_file', 'read_file', 'bash', 'bash', 'edit_file', 'write_file'] as const)) {
      case 'read_file':
        return {
          id,
          name: 'read_file',
          arguments: JSON.stringify({ path: file }),
          output: sourceListing(rng, size),
          file,
        };
      case 'bash':
        return {
          id,
          name: 'bash',
          arguments: JSON.stringify({ command: `npm test -- ${file}` }),
          output: commandOutput(rng, size),
          file,
        };
      case 'edit_file': {
        const [oldText, newText] = [prose(rng, 6), prose(rng, 6)];
        return {
          id,
          name: 'edit_file',
          arguments: JSON.stringify({ path: file, old_string: oldText, new_string: newText }),
          output: `edited ${file}\nActual replacement receipt after write:\n@@ replacement 1 of 1 (1 occurrence(s)) @@\n-${oldText}\n+${newText}\n`,
          file,
          diff: `--- a/${file}\n+++ b/${file}\n@@ -1,1 +1,1 @@\n-${oldText}\n+${newText}\n`,
        };
      }
      case 'write_file': {
        const content = sourceListing(rng, 400 + rng.int(2000)).replace(/^\d+→/gm, '');
        return {
          id,
          name: 'write_file',
          arguments: JSON.stringify({ path: file, content }),
          output: `wrote ${content.length} bytes to ${file}`,
          file,
          diff: `--- a/${file}\n+++ b/${file}\n@@ -0,0 +1 @@\n+${content.slice(0, 200)}\n`,
        };
      }
    }
  }
}

/** Typical tool output sizes: mostly a few KB, some tens of KB (all inline, ≤ 64 KiB). */
const OUTPUT_SIZES = [200, 400, 800, 1200, 1500, 2500, 4000, 6000, 10000, 24000];

interface PlannedCall {
  id: string;
  name: 'read_file' | 'bash' | 'edit_file' | 'write_file';
  arguments: string;
  output: string;
  file: string;
  diff?: string;
}

const complete = (message: Record<string, unknown>): EventToWrite => ({
  kind: 'message/complete',
  payload: { message },
});

/** Keys in Go map order (alphabetical), as Reasonix writes assistant/attempt. */
const attempt = (action: 'begin' | 'commit', id: string): EventToWrite => ({
  kind: 'assistant/attempt',
  payload: { action, attempt: 1, id, max: 4, messageId: id, reason: '' },
});

function toolMessage(call: PlannedCall, id: string): Record<string, unknown> {
  const base = { role: 'tool', id, content: call.output, tool_call_id: call.id, name: call.name };
  if (call.name === 'bash') {
    return {
      ...base,
      tool_execution: {
        kind: 'shell',
        shell: 'bash',
        platform: 'linux',
        supportsAndAnd: true,
        state: 'completed',
        exitCode: 0,
        mutationRisk: 'may_have_completed',
        verification: 'not_verification',
        durationMs: 40,
      },
      tool_run_state: 'completed',
    };
  }
  if (call.name === 'read_file') {
    const lines = call.output.split('\n').length - 1;
    return {
      ...base,
      tool_run_state: 'completed',
      read_result: {
        protocol_version: 2,
        read_id: `read-${call.id.slice(5, 21)}`,
        result_ref: `tr-${call.id.slice(5, 29)}`,
        source: {
          canonical_path: call.file,
          kind: 'disk',
          identity: `disk-v1:${call.id.slice(5).padEnd(64, '0')}`,
          snapshot: `ss2:${call.id.slice(5).padEnd(64, '1')}`,
        },
        intent: 'inspect',
        delivered_ranges: [{ start: 0, end: lines }],
        window_digest: `wd2:${call.id.slice(5).padEnd(64, '2')}`,
        has_more: false,
        eof: true,
        source_end: lines,
      },
    };
  }
  return { ...base, tool_run_state: 'completed' };
}

/** The tool/call event of Reasonix 1.38.11, every payload key in its (alphabetical) order. */
function toolCallEvent(
  call: PlannedCall,
  phase: { attemptId?: string; partial?: boolean; runState?: string; refreshed?: boolean },
): EventToWrite {
  const mutating = call.name === 'edit_file' || call.name === 'write_file';
  const payload = {
    added: call.diff ? 1 : 0,
    argChars: 0,
    args: phase.partial ? '' : call.arguments,
    attemptId: phase.attemptId ?? '',
    capabilityId: '',
    diagnostic: null,
    diff: phase.partial ? '' : (call.diff ?? ''),
    durationMs: 0,
    endedAt: 0,
    execution: null,
    id: call.id,
    name: call.name,
    parentId: '',
    partial: phase.partial ?? false,
    presentedFiles: null,
    profile: null,
    readOnly: !mutating && (phase.refreshed ?? false),
    refreshed: phase.refreshed ?? false,
    removed: call.name === 'edit_file' ? 1 : 0,
    resolvedName: phase.refreshed ? call.name : '',
    runState: phase.runState ?? '',
    startedAt: 0,
    subagentErrorCode: '',
    subagentRef: '',
    subagentRetryable: false,
    subagentStatus: '',
    truncated: false,
    workspaceAllPaths: false,
    workspaceMutation: false,
    workspacePaths: null,
  };
  return { kind: 'tool/call', payload };
}

/** tool/result repeats the whole output, as Reasonix's does: big outputs go to the content store twice. */
function toolResult(call: PlannedCall, now: number) {
  const mutating = call.name === 'edit_file' || call.name === 'write_file';
  return {
    added: 0,
    argChars: 0,
    args: call.arguments,
    attemptId: '',
    capabilityId: '',
    diagnostic: null,
    diff: '',
    durationMs: 40,
    endedAt: now,
    error: '',
    execution:
      call.name === 'bash'
        ? {
            kind: 'shell',
            shell: 'bash',
            platform: 'linux',
            supportsAndAnd: true,
            state: 'completed',
            exitCode: 0,
            mutationRisk: 'may_have_completed',
            verification: 'not_verification',
            durationMs: 40,
          }
        : null,
    id: call.id,
    name: call.name,
    output: call.output,
    parentId: '',
    partial: false,
    presentedFiles: null,
    profile: null,
    readOnly: !mutating,
    refreshed: false,
    removed: 0,
    resolvedName: call.name,
    runState: 'completed',
    startedAt: now - 40,
    subagentErrorCode: '',
    subagentRef: '',
    subagentRetryable: false,
    subagentStatus: '',
    todoWritten: false,
    todos: null,
    truncated: false,
    workspaceAllPaths: false,
    workspaceMutation: mutating,
    workspacePaths: mutating ? [call.file] : null,
  };
}

const SYSTEM_PROMPT = [
  'You are Reasonix, a coding agent.',
  "Use the available tools when they help you complete the user's request.",
  'Keep changes focused and responses concise.',
  '',
  'Work practices: implement exactly the approach the request names; keep scratch work out of the repository; review the final diff before declaring done.',
  '',
  '# Session context',
  '',
  'Reasonix may place a host-generated `<session-context>` message immediately before a user turn. Use the latest such snapshot as current runtime background.',
].join('\n');

/** The host session-context message Reasonix admits before every typed message (~2.3 KB). */
function sessionContext(workspace: string): string {
  return [
    '<session-context version="1">',
    'This host-generated snapshot supersedes every earlier session-context snapshot.',
    '',
    '## Environment',
    '',
    '- OS: linux/amd64',
    '- Shell: bash',
    '',
    'Detected tools:',
    '- git: git version 2.39.5',
    '- make: GNU Make 4.3',
    '- node: v20.20.2',
    '- npm: 11.19.1',
    '- python3: Python 3.11.7',
    '',
    'Not found or unavailable:',
    '- go: not found',
    '- rg: not found',
    '',
    'Use detected tools when appropriate. Do not try unavailable tools unless the user installs or configures them.',
    '',
    '## Workspace',
    '',
    `Current workspace: "${workspace}"`,
    '',
    '## Skills catalog',
    '',
    '```',
    '- explore [subagent] — Investigate repository structure or behavior in a read-only subagent.',
    '- init — Create or update concise project instructions from verified repository contracts and commands.',
    '- review [subagent] — Review the requested code changes for correctness, security, and regression risks in a read-only subagent.',
    '- test — Run requested tests, diagnose failures, and complete authorized repairs.',
    '```',
    '',
    'Digest: sha256:e7f84d84b2f8c3fe5966fe92293c859fd8a599a64d09b2918b1a7a7bc9b5697b',
    '</session-context>',
  ].join('\n');
}
