import { stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHygiene, inspectReport } from '../../../src/index.js';
import { formatInspect } from '../../../src/cli/format-inspect.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { createSession } from '../../../src/session/writing/create-session.js';
import { readJsonlSession } from '../../../src/store/jsonl/read-jsonl-session.js';
import { LEGACY_PRUNE_MARKER } from '../../../src/session/replay/hygiene.js';
import type { BatchToWrite, EventToWrite } from '../../../src/codec/encode-batch.js';
import { copySession, cutLog, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';
import { complete, toolResult } from '../../support/sessions/messages.js';

const event = (kind: string, payload: unknown): EventToWrite => ({ kind, payload });
const system = { role: 'system', id: 'm-system', content: 'You are a careful coding agent.' };
const calls = (id: string, ...toolCalls: Record<string, unknown>[]) =>
  complete({ role: 'assistant', id, content: '', tool_calls: toolCalls });
const result = (id: string, callId: string, content = 'done') =>
  complete(toolResult(id, callId, { name: 'bash', content }));

async function sessionOf(batches: BatchToWrite[]): Promise<string> {
  return (
    await createSession({ storeDir: join(await tempDir('rxstore-hygiene-'), 'sessions-v4'), batches, validate: false })
  ).dir;
}

describe('hygiene findings', () => {
  it('name tool calls without a name, without a result or with cut-off arguments, and pruned results, by call and message', async () => {
    const dir = await sessionOf([
      { operationId: 'o1', events: [complete(system)] },
      {
        operationId: 'o2',
        turnId: 'turn_a',
        events: [
          event('turn/start', {}),
          complete({ role: 'user', id: 'm-u', content: 'go' }),
          calls(
            'm-c1',
            { id: 'call_blank', name: '  ', arguments: '{}' },
            { id: 'call_dangling', name: 'bash', arguments: '{"command":"ls"}' },
            { id: 'call_cut', name: 'bash', arguments: '{"command":"l' },
          ),
          calls('m-c2', { name: '', arguments: '' }, { id: 'call_fine', name: 'read_file', arguments: '{"path":"a"}' }),
          result('m-r1', 'call_blank'),
          result('m-r2', 'call_cut'),
          result('m-r3', 'call_fine', `${LEGACY_PRUNE_MARKER}1200 chars]`),
          event('turn/end', { status: 'completed' }),
        ],
      },
    ]);
    const read = await readSession(dir);
    const hygiene = checkHygiene(read.projection);
    expect(hygiene.findings).toEqual([
      {
        code: 'RX_EMPTY_TOOL_NAME',
        severity: 'warning',
        message: 'tool call call_blank has an empty name',
        messageId: 'm-c1',
      },
      {
        code: 'RX_DANGLING_TOOL_CALL',
        severity: 'warning',
        message: 'tool call call_dangling (bash) has no tool result',
        messageId: 'm-c1',
      },
      {
        code: 'RX_TRUNCATED_ARGUMENTS',
        severity: 'warning',
        message: 'tool call call_cut (bash) has arguments that are not a complete JSON object',
        messageId: 'm-c1',
      },
      {
        code: 'RX_EMPTY_TOOL_NAME',
        severity: 'warning',
        message: 'tool call (no id) has an empty name',
        messageId: 'm-c2',
      },
      {
        code: 'RX_DANGLING_TOOL_CALL',
        severity: 'warning',
        message: 'tool call (no id) () has no tool result',
        messageId: 'm-c2',
      },
      {
        code: 'RX_TRUNCATED_ARGUMENTS',
        severity: 'warning',
        message: 'tool call (no id) () has empty arguments, not a JSON object',
        messageId: 'm-c2',
      },
      {
        code: 'RX_PRUNED_TOOL_RESULT',
        severity: 'note',
        message: 'tool result call_fine was pruned by an older Reasonix',
        messageId: 'm-r3',
      },
    ]);
    expect(hygiene.hasContent).toBe(true);
    expect(hygiene.interruptedTurns).toEqual([]);
    expect(hygiene.compactions).toEqual([]);
    // Strict makes each warning an error; a note stays a note.
    expect(checkHygiene(read.projection, { strict: true }).findings.map((finding) => finding.severity)).toEqual([
      'error',
      'error',
      'error',
      'error',
      'error',
      'error',
      'note',
    ]);
  });

  it('take only a JSON object for complete arguments, an absent name as empty and absent arguments as empty (refused too), and a typed marker for no pruning', async () => {
    const dir = await sessionOf([
      {
        operationId: 'o1',
        events: [
          complete(system),
          calls(
            'm-c',
            { id: 'c_five', name: 'bash', arguments: '5' },
            { id: 'c_null', name: 'bash', arguments: 'null' },
            { id: 'c_list', name: 'bash', arguments: '[1]' },
            { id: 'c_none', name: 'bash' },
            { id: 'c_nameless', arguments: '{}' },
          ),
          ...['c_five', 'c_null', 'c_list', 'c_none', 'c_nameless'].map((callId) => result(`m-${callId}`, callId)),
          complete({ role: 'user', id: 'm-u', content: `${LEGACY_PRUNE_MARKER}typed by a person]` }),
        ],
      },
    ]);
    expect(checkHygiene((await readSession(dir)).projection).findings).toStrictEqual([
      {
        code: 'RX_TRUNCATED_ARGUMENTS',
        severity: 'warning',
        message: 'tool call c_five (bash) has arguments that are not a complete JSON object',
        messageId: 'm-c',
      },
      {
        code: 'RX_TRUNCATED_ARGUMENTS',
        severity: 'warning',
        message: 'tool call c_null (bash) has arguments that are not a complete JSON object',
        messageId: 'm-c',
      },
      {
        code: 'RX_TRUNCATED_ARGUMENTS',
        severity: 'warning',
        message: 'tool call c_list (bash) has arguments that are not a complete JSON object',
        messageId: 'm-c',
      },
      // Reasonix's transcript gate refuses empty arguments too (test/reasonix/reads/go-zero-values-match-reasonix).
      {
        code: 'RX_TRUNCATED_ARGUMENTS',
        severity: 'warning',
        message: 'tool call c_none (bash) has empty arguments, not a JSON object',
        messageId: 'm-c',
      },
      {
        code: 'RX_EMPTY_TOOL_NAME',
        severity: 'warning',
        message: 'tool call c_nameless has an empty name',
        messageId: 'm-c',
      },
    ]);
    // A message without an id (a replaced history may hold one) gives findings without one; inspect of an
    // undamaged session reports a turn that never ended and the call left without a result in it.
    const unnamed = await sessionOf([
      {
        operationId: 'o1',
        events: [
          event('history/replace', {
            messages: [
              system,
              { role: 'assistant', content: '', tool_calls: [{ id: 'c_cut', name: 'bash', arguments: '{' }] },
            ],
          }),
          complete({ role: 'tool', id: 'm-r', tool_call_id: 'c_cut', content: 'x' }),
        ],
      },
      {
        operationId: 'o2',
        turnId: 'turn_open',
        events: [event('turn/start', {}), calls('m-c2', { id: 'c_open', name: 'bash', arguments: '{}' })],
      },
    ]);
    expect(inspectReport(await readSession(unnamed), 'sessions-v4').hygiene).toStrictEqual({
      findings: [
        {
          code: 'RX_TRUNCATED_ARGUMENTS',
          severity: 'warning',
          message: 'tool call c_cut (bash) has arguments that are not a complete JSON object',
        },
        {
          code: 'RX_DANGLING_TOOL_CALL',
          severity: 'warning',
          message: 'tool call c_open (bash) has no tool result',
          messageId: 'm-c2',
        },
        { code: 'RX_INTERRUPTED_TURN', severity: 'warning', message: 'turn turn_open never ended' },
      ],
      hasContent: true,
      compactions: [],
      interruptedTurns: ['turn_open'],
    });
  });

  it('name a call id made twice in one message, once for each repeat, and not one made again in another message or left empty', async () => {
    const twice = { id: 'c_twice', name: 'bash', arguments: '{}' };
    const dir = await sessionOf([
      {
        operationId: 'o1',
        events: [
          complete(system),
          calls(
            'm-c',
            twice,
            twice,
            { id: 'c_other', name: 'bash', arguments: '{}' },
            twice,
            { id: '', name: 'bash', arguments: '{}' },
            { id: '', name: 'bash', arguments: '{}' },
          ),
          calls('m-d', twice),
          result('m-r', 'c_twice'),
          result('m-r2', 'c_other'),
        ],
      },
    ]);
    const findings = checkHygiene((await readSession(dir)).projection).findings.filter(
      (finding) => finding.code === 'RX_DUPLICATE_CALL_ID',
    );
    expect(findings).toStrictEqual([
      {
        code: 'RX_DUPLICATE_CALL_ID',
        severity: 'warning',
        message: 'tool call c_twice (bash) comes twice in one message',
        messageId: 'm-c',
      },
      {
        code: 'RX_DUPLICATE_CALL_ID',
        severity: 'warning',
        message: 'tool call c_twice (bash) comes twice in one message',
        messageId: 'm-c',
      },
    ]);
  });

  it('say a transcript without a leading system message, count content past the system prompt, and turn compactions into notes', async () => {
    const noSystem = checkHygiene(
      (
        await readSession(
          await sessionOf([
            { operationId: 'o1', events: [complete({ role: 'user', id: 'm-u', content: 'hi' }), complete(system)] },
          ]),
        )
      ).projection,
    );
    expect(noSystem.findings).toEqual([
      {
        code: 'RX_NO_SYSTEM_MESSAGE',
        severity: 'warning',
        message:
          'the session has no leading system message: Reasonix resumes it without a system prompt and refuses to snapshot it',
      },
    ]);
    expect(noSystem.hasContent).toBe(true);

    const onlySystem = checkHygiene(
      (
        await readSession(
          await sessionOf([
            { operationId: 'o1', events: [complete(system), complete({ ...system, id: 'm-system-2' })] },
          ]),
        )
      ).projection,
    );
    expect(onlySystem).toEqual({ findings: [], hasContent: false, compactions: [], interruptedTurns: [] });

    const empty = checkHygiene(
      (
        await readSession(
          await sessionOf([{ operationId: 'o1', events: [event('session/config', { modelRef: 'a/b' })] }]),
        )
      ).projection,
    );
    expect(empty).toEqual({ findings: [], hasContent: false, compactions: [], interruptedTurns: [] });

    const compacted = checkHygiene((await readSession(fixture('compacted').dir)).projection, { strict: true });
    expect(compacted).toEqual({
      findings: [
        {
          code: 'RX_COMPACTED',
          severity: 'note',
          message:
            'compaction checkpoint at sequence 41: the model is sent a summary, the transcript keeps every message',
        },
      ],
      hasContent: true,
      compactions: [41],
      interruptedTurns: [],
    });
  });

  it('report turns that failed, were interrupted or never ended; at a cut by damage an open turn and its calls are not findings', async () => {
    const dir = await sessionOf([
      { operationId: 'o1', events: [complete(system)] },
      {
        operationId: 'o2',
        turnId: 'turn_failed',
        events: [
          event('turn/start', {}),
          calls('m-c1', { id: 'call_early', name: 'bash', arguments: '{}' }),
          event('turn/end', { status: 'failed' }),
        ],
      },
      {
        operationId: 'o3',
        turnId: 'turn_open',
        events: [event('turn/start', {}), calls('m-c2', { id: 'call_late', name: 'bash', arguments: '{}' })],
      },
      {
        operationId: 'o4',
        turnId: 'turn_done',
        events: [
          event('turn/start', {}),
          complete({ role: 'user', id: 'm-u', content: 'x' }),
          event('turn/end', { status: 'completed' }),
        ],
      },
    ]);
    const read = await readSession(dir);
    const whole = checkHygiene(read.projection);
    expect(whole.findings.map((finding) => finding.message)).toEqual([
      'tool call call_early (bash) has no tool result',
      'tool call call_late (bash) has no tool result',
      'turn turn_failed ended failed',
      'turn turn_open never ended',
    ]);
    expect(whole.interruptedTurns).toEqual(['turn_failed', 'turn_open']);
    const cut = checkHygiene(read.projection, { cutByDamage: true });
    expect(cut.findings.map((finding) => finding.message)).toEqual([
      'tool call call_early (bash) has no tool result',
      'turn turn_failed ended failed',
    ]);
    expect(cut.interruptedTurns).toEqual(['turn_failed']);
  });
});

describe('the inspect report', () => {
  it('gives the facts of a fixture Reasonix wrote', async () => {
    const source = fixture('tool-calls');
    const report = inspectReport(await readSession(source.dir), 'sessions-v4');
    expect(report).toMatchObject({
      id: source.id,
      store: 'sessions-v4',
      path: source.dir,
      status: 'ok',
      workspace: source.workspace,
      // No title of its own: called by what the person first typed, as ls calls it.
      title: 'List the files in this workspace.',
      titleFrom: 'preview',
      createdAt: '2026-11-30T06:48:49.235Z',
      updatedAt: '2026-11-30T06:48:49.917Z',
      writerGeneration: 3,
      batches: source.counts.batches,
      messages: { total: 19, byRole: { system: 1, user: 6, assistant: 7, tool: 5 }, seenByPerson: 16 },
      payloadRefs: 0,
      tornTail: null,
      tornEvidence: [],
      openInRunningReasonix: false,
      hygiene: { findings: [], hasContent: true, compactions: [], interruptedTurns: [] },
    });
    expect(report.events.total).toBe(source.counts.events);
    expect({ ...report.messages.byRole }).toEqual(source.counts.messagesByRole);
    expect(Object.getPrototypeOf(report.messages.byRole)).toBeNull();
    expect(inspectReport(await readSession(fixture('titled').dir), 'sessions-v4').title).toBe('Refactor plan (fork)');
    expect(inspectReport(await readSession(fixture('payload-ref').dir), 'sessions-v4').payloadRefs).toBe(2);
  });

  it("gives a JSONL transcript's times, title and workspace from its meta file", async () => {
    const source = fixture('jsonl-migrated');
    const path = join(source.root, 'projects/-tmp-rxstore-fixture-ws-jsonl-migrated/sessions/legacy-demo.jsonl');
    const report = inspectReport(await readJsonlSession(path), 'sessions');
    expect(report).toMatchObject({
      id: 'legacy-demo',
      store: 'sessions',
      path,
      status: 'ok',
      workspace: '/tmp/rxstore-fixture-ws/jsonl-migrated',
      createdAt: '2025-06-01T10:00:00.000Z',
      updatedAt: '2025-06-01T10:05:00.000Z',
      messages: { total: 5, byRole: { system: 1, user: 1, assistant: 2, tool: 1 }, seenByPerson: 5 },
      tornTail: null,
      problems: [],
    });
  });

  it("flattens each problem's place beside it, gives the torn tail, and makes warnings errors under strict", async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    await cutLog(dir, 7);
    const read = await readSession(dir);
    const size = (await stat(logOf(dir))).size;
    const report = inspectReport(read, 'sessions-v4');
    expect(report.status).toBe('torn-tail');
    expect(report.tornTail).toEqual({ offset: read.durableEnd, bytes: size - read.durableEnd });
    expect(report.tornTail!.bytes).toBeGreaterThan(0);
    const torn = report.problems.find((problem) => problem.code === 'RX_TORN_TAIL')!;
    expect(torn).toMatchObject({ severity: 'warning', file: logOf(dir), offset: read.durableEnd });
    expect(torn).not.toHaveProperty('line');
    // A problem without a place has none of the flat fields.
    for (const problem of report.problems) {
      for (const key of ['file', 'offset', 'line'] as const) expect(problem[key]).toBe(problem.data[key]);
      for (const key of ['file', 'offset', 'line'] as const)
        expect(key in problem).toBe(problem.data[key] !== undefined);
    }
    const strict = inspectReport(read, 'sessions-v4', { strict: true });
    expect(strict.problems.find((problem) => problem.code === 'RX_TORN_TAIL')!.severity).toBe('error');
    expect(strict.problems.filter((problem) => problem.severity === 'warning')).toEqual([]);
    expect(report.problems.filter((problem) => problem.severity === 'note').map((problem) => problem.code)).toEqual(
      strict.problems.filter((problem) => problem.severity === 'note').map((problem) => problem.code),
    );
    // As printed: the status stays Reasonix's, and says what --strict makes fail; a byte is one byte.
    expect(formatInspect(report)).toMatch(/^status {7}torn-tail\n/m);
    expect(formatInspect(strict)).toMatch(/^status {7}torn-tail \(2 warnings made an error by --strict\)\n/m);
    await truncate(logOf(dir), read.durableEnd + 1);
    expect(formatInspect(inspectReport(await readSession(dir), 'sessions-v4'))).toMatch(
      /^torn tail {4}1 byte at offset \d+\n/m,
    );
  });

  it('names a message without a role as such in the counts', async () => {
    const path = join(await tempDir('rxstore-inspect-'), 'roles.jsonl');
    await writeFile(path, ['{"role":"system","content":"s"}', '{"content":"no role"}', ''].join('\n'));
    expect(formatInspect(inspectReport(await readJsonlSession(path), 'sessions'))).toMatch(
      /^messages {5}2 \((system 1, \(no role\) 1|\(no role\) 1, system 1)\)/m,
    );
  });

  it('names the line of a transcript problem, and at damage leaves the open turn out of the hygiene findings', async () => {
    const path = join(await tempDir('rxstore-inspect-'), 'broken.jsonl');
    await writeFile(
      path,
      ['{"role":"system","content":"s"}', '{"role":"user","content":"hi"}', '{"role":"user",', ''].join('\n'),
    );
    const jsonl = inspectReport(await readJsonlSession(path), 'sessions');
    const broken = jsonl.problems.find((problem) => problem.severity === 'error')!;
    // Line 3 starts at byte 63.
    expect(broken).toMatchObject({ file: path, line: 3, offset: 63 });
    expect(jsonl.messages.total).toBe(2);

    const dir = await sessionOf([
      { operationId: 'o1', events: [complete(system)] },
      {
        operationId: 'o2',
        turnId: 'turn_open',
        events: [
          event('turn/start', {}),
          calls('m-c', { id: 'call_x', name: 'bash', arguments: '{}' }),
          complete({ ...system }),
        ],
      },
    ]);
    const damaged = inspectReport(await readSession(dir), 'sessions-v4');
    expect(damaged.status).toBe('damaged');
    expect(damaged.hygiene.findings).toEqual([]);
    expect(damaged.hygiene.interruptedTurns).toEqual([]);
    expect(damaged.problems[0]).toMatchObject({
      code: 'RX_STRICT_PAYLOAD',
      severity: 'error',
      file: logOf(dir),
      offset: expect.any(Number),
    });
  });
});
