import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBatch, type EventToWrite } from '../../../src/codec/encode-batch.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, endFrames, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { accepted, rules, TAKEN_ID, UNSUPPORTED } from '../../support/sessions/payload-rules.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

/**
 * Each rule Reasonix 1.38.11 applies when it replays an event payload (internal/session
 * projection.go: `strictPayload`, `damagedPayload` and the `project*` function of each kind), as
 * a pair: a session breaking the rule is refused by the real Reasonix and by rxstore, and the
 * nearest session keeping it is opened by both.
 */
const source = fixture('plain-chat');

/** Appends one batch of events after the log's last one; returns the new events' frame offsets. */
async function append(
  dir: string,
  events: EventToWrite[],
  options: { operationId?: string; firstSeqShift?: number } = {},
): Promise<number[]> {
  const last = (await endFrames(dir)).at(-1)!.record as unknown as { firstSeq: number; eventCount: number };
  const log = await readFile(logOf(dir));
  const encoded = await encodeBatch(
    { operationId: options.operationId ?? `rx-rule:${log.length}`, events },
    {
      sessionId: basename(dir),
      writerGeneration: 1,
      firstSeq: last.firstSeq + last.eventCount + (options.firstSeqShift ?? 0),
      offset: log.length,
    },
  );
  await writeFile(logOf(dir), Buffer.concat([log, encoded.bytes]));
  return encoded.batch.events.map((event) => event.offset);
}

/** The session with the events appended, rxstore's verdict on it, and the real Reasonix's. */
async function judge(
  events: EventToWrite[],
  options: { operationId?: string; firstSeqShift?: number; before?: (dir: string) => Promise<void> } = {},
) {
  const dir = await copySession(source.dir);
  await options.before?.(dir);
  const read = await readSession(dir);
  const seq = read.lastSequence + 1;
  const offsets = await append(dir, events, options);
  const after = await readSession(dir);
  const resumed = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Still there?' });
  await rm(resumed.home, { recursive: true, force: true });
  const lines = `${resumed.stdout}\n${resumed.stderr}`.split('\n').map((line) => line.trim());
  return {
    dir,
    seq,
    offsets,
    read: after,
    code: resumed.code,
    lines,
    taken: read.projection.transcript[1]!.message.id!,
  };
}

const withTaken = (event: EventToWrite, id: string): EventToWrite =>
  event.payload && JSON.stringify(event.payload).includes(TAKEN_ID)
    ? { ...event, payload: JSON.parse(JSON.stringify(event.payload).replace(TAKEN_ID, id)) }
    : event;

describe.skipIf(!reasonixBinary())(
  reasonixTitle('payload rules: refused by Reasonix 1.38.11 and rxstore, the nearest valid one opened by both'),
  () => {
    it.concurrent.each(rules)('$rule', async (rule) => {
      const taken = (await readSession(source.dir)).projection.transcript[1]!.message.id!;
      const refused = await judge([withTaken(rule.refused, taken)]);
      const expected =
        rule.line ??
        `error: damaged session store: invalid ${rule.refused.kind} payload at ${refused.seq}${rule.cause ? `: ${rule.cause.replace('%TAKEN%', taken)}` : ''}`;
      expect(refused.code, refused.lines.join('\n')).toBe(1);
      expect(refused.lines, refused.lines.join('\n')).toContain(expected);
      expect(refused.read.status).toBe(rule.line === UNSUPPORTED ? 'unsupported' : 'damaged');
      const errors = refused.read.problems.filter((problem) => problem.severity === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ data: { file: logOf(refused.dir), offset: refused.offsets[0] } });
      if (rule.line !== UNSUPPORTED) expect(errors[0]!.message).toContain(` at ${refused.seq}: `);

      const valid = await judge([rule.valid]);
      expect(valid.code, valid.lines.join('\n')).toBe(0);
      expect(valid.read.status).toBe('ok');
    });

    it.concurrent.each(accepted)('opened by both: $rule', async ({ event }) => {
      const opened = await judge([event]);
      expect(opened.code, opened.lines.join('\n')).toBe(0);
      expect(opened.read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    });

    it.concurrent('an operation id comes again only with the same events', async () => {
      const title = { kind: 'session/title', payload: { title: 'once' } };
      const same = await judge([title], {
        operationId: 'rx-rule:op',
        before: async (dir) => void (await append(dir, [title], { operationId: 'rx-rule:op' })),
      });
      expect(same.code, same.lines.join('\n')).toBe(0);
      expect(same.read.status).toBe('ok');
      const other = await judge([{ kind: 'session/title', payload: { title: 'twice' } }], {
        operationId: 'rx-rule:op',
        before: async (dir) => void (await append(dir, [title], { operationId: 'rx-rule:op' })),
      });
      expect(other.code).toBe(1);
      expect(other.lines).toContain('error: damaged session store: conflicting operation "rx-rule:op"');
      expect(other.read.status).toBe('damaged');
      expect(other.read.problems.find((problem) => problem.severity === 'error')!.message).toBe(
        'conflicting operation "rx-rule:op"',
      );
    });

    it.concurrent('a batch starts right after the one before: no gap, no overlap', async () => {
      for (const shift of [1, -1]) {
        const judged = await judge([{ kind: 'session/title', payload: { title: 'x' } }], { firstSeqShift: shift });
        const boundary = `error: damaged session store: invalid v4 batch boundary at sequence ${judged.seq}`;
        expect(judged.code).toBe(1);
        expect(judged.lines).toContain(boundary);
        expect(judged.read.problems.find((problem) => problem.severity === 'error')!.message).toBe(
          `invalid v4 batch boundary at sequence ${judged.seq}`,
        );
      }
    });

    it.concurrent('a tool call has one result in what the model is sent: a second is refused, a local-only one or a repeated call id is not', async () => {
      const tools = fixture('tool-calls');
      const cases = [
        {
          message: { role: 'tool', id: 'rx-rule-dup', tool_call_id: 'call_ls', name: 'bash', content: 'again' },
          opens: false,
        },
        {
          message: {
            role: 'tool',
            id: 'rx-rule-dup',
            tool_call_id: 'call_ls',
            name: 'bash',
            content: 'again',
            local_only: true,
          },
          opens: true,
        },
        {
          message: {
            role: 'assistant',
            id: 'rx-rule-dup',
            content: '',
            tool_calls: [{ id: 'call_ls', name: 'bash', arguments: '{}' }],
          },
          opens: true,
        },
      ];
      for (const { message, opens } of cases) {
        const dir = await copySession(tools.dir);
        const offsets = await append(dir, [{ kind: 'message/complete', payload: { message } }]);
        const read = await readSession(dir);
        const resumed = await resumeWithReasonix(dir, { workspace: tools.workspace, prompt: 'Still there?' });
        await rm(resumed.home, { recursive: true, force: true });
        expect(resumed.code, JSON.stringify(message)).toBe(opens ? 0 : 1);
        if (opens) {
          expect(read.status).toBe('ok');
          continue;
        }
        expect(resumed.stderr).toContain('duplicate transcript record "tool:call_ls"');
        expect(read.status).toBe('damaged');
        expect(read.problems.find((problem) => problem.severity === 'error')).toMatchObject({
          code: 'RX_STRICT_PAYLOAD',
          data: expect.objectContaining({ offset: offsets[0] }),
          message: expect.stringContaining('duplicate transcript record "tool:call_ls"'),
        });
      }
    });
  },
);
