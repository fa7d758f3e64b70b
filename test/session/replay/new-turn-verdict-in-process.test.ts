import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { gateCarry, gateFacts, transcriptGate, type GateMessage } from '../../../src/session/replay/transcript-gate.js';
import type { ListedSession } from '../../../src/store/listing/describe-conversation.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { InspectJsonSchema, runCli } from '../../support/inspect-json-schema.js';
import { newTurnCases, type NewTurnCase } from '../../support/reasonix/new-turn-cases.js';
import { buildStateRoot } from '../../support/sessions/state-root.js';
import { seededRandom } from '../../support/seeded-random.js';
import { tempDir } from '../../support/temp-dir.js';
import { cachePerTest } from '../../support/cache-per-test.js';

const refusedCall = {
  kind: 'message/complete',
  payload: {
    message: {
      role: 'assistant',
      id: 'rx-gate-bad',
      content: '',
      tool_calls: [{ id: 'call_bad', name: 'bash', arguments: '' }],
    },
  },
};
const itsResult = {
  kind: 'message/complete',
  payload: {
    message: { role: 'tool', id: 'rx-gate-bad-result', tool_call_id: 'call_bad', name: 'bash', content: 'x' },
  },
};

describe('a session Reasonix opens but takes no new turn in is its own verdict', () => {
  cachePerTest();

  it("inspect exits 1 with a coded problem in Reasonix's words, --json carries the verdict", async () => {
    const machine = await buildStateRoot();
    const listed = JSON.parse(
      (await runCli(['ls', '--state-home', machine.stateRoot, '--json'])).stdout,
    ) as ListedSession[];
    const dir = listed
      .find((session) => session.id === machine.ids.plainChat)!
      .copies.find((copy) => copy.store === 'sessions-v4')!.path;
    const view = (await readSession(dir)).projection.modelMessages.length;
    await appendBatch(dir, [refusedCall, itsResult]);
    const reason = `transcript gate: tool arguments must be a JSON object at message ${view}`;

    const json = await runCli(['inspect', dir, '--json']);
    expect(json.code).toBe(1);
    const report = InspectJsonSchema.parse(JSON.parse(json.stdout));
    expect(report.status).toBe('turn-refused');
    expect(report.newTurn).toEqual({ accepted: false, reason, message: view });
    expect(report.problems).toContainEqual(
      expect.objectContaining({ code: 'RX_TURN_REFUSED', message: expect.stringContaining(`("${reason}")`) }),
    );
    const text = await runCli(['inspect', dir]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('status       turn-refused');
    expect(text.stdout).toContain(`new turn     Reasonix opens it but refuses a new turn: "${reason}"\n`);
    expect(text.stdout).toMatch(/error +RX_TURN_REFUSED /);

    // ls marks the row and exits 0; a warm ls keeps the verdict from its cache.
    for (const checked of ['now', 'cache']) {
      const run = await runCli(['ls', '--state-home', machine.stateRoot, '--json']);
      expect(run.code).toBe(0);
      const row = (JSON.parse(run.stdout) as ListedSession[]).find(
        (session) => session.path === dir || session.copies.some((copy) => copy.path === dir),
      )!;
      const copy = row.copies.find((each) => each.path === dir)!;
      expect(copy).toMatchObject({ status: 'turn-refused', checked, problem: expect.stringContaining(reason) });
    }
    const rows = await runCli(['ls', '--state-home', machine.stateRoot]);
    expect(rows.code).toBe(0);
    expect(rows.stdout).toContain(reason);
  });

  it('a listing that reads only what was appended gives the verdict a whole read gives', async () => {
    const machine = await buildStateRoot();
    const ls = async () =>
      JSON.parse((await runCli(['ls', '--state-home', machine.stateRoot, '--json'])).stdout) as ListedSession[];
    const dir = (await ls())
      .find((session) => session.id === machine.ids.toolCalls)!
      .copies.find((copy) => copy.store === 'sessions-v4')!.path;
    // A good turn is read as appended; a bad one makes the listing read the log whole, and say so.
    await appendBatch(dir, [
      {
        kind: 'message/complete',
        payload: {
          message: {
            role: 'assistant',
            id: 'rx-gate-good',
            content: '',
            tool_calls: [{ id: 'call_good', name: 'bash', arguments: '{}' }],
          },
        },
      },
    ]);
    const good = (await ls()).flatMap((session) => session.copies).find((copy) => copy.path === dir)!;
    expect(good).toMatchObject({ status: 'ok', checked: 'appended' });
    await appendBatch(dir, [
      {
        kind: 'message/complete',
        payload: {
          message: { role: 'tool', id: 'rx-gate-good-result', tool_call_id: 'call_good', name: 'bash', content: 'x' },
        },
      },
    ]);
    expect((await ls()).flatMap((session) => session.copies).find((copy) => copy.path === dir)).toMatchObject({
      status: 'ok',
      checked: 'appended',
    });
    await appendBatch(dir, [refusedCall]);
    const bad = (await ls()).flatMap((session) => session.copies).find((copy) => copy.path === dir)!;
    expect(bad).toMatchObject({ status: 'turn-refused', checked: 'now' });
    expect(bad.problem).toBe(
      (await readSession(dir)).problems.find((problem) => problem.code === 'RX_TURN_REFUSED')!.message,
    );
  });

  it('the gate judged part by part, from what each part carries, says of each prefix what it says of it whole', () => {
    const { next: random } = seededRandom(35);
    const plain: GateMessage = { role: 'user' };
    const views = newTurnCases.map((each: NewTurnCase) => [
      { role: 'system' },
      plain,
      { role: 'assistant' },
      ...each.messages.map((message) => gateFacts(message as never) ?? plain),
    ]);
    // Mixed views: several cases' messages one after another, so a refusal comes anywhere.
    for (let mix = 0; mix < 200; mix += 1)
      views.push(
        Array.from(
          { length: 1 + Math.floor(random() * 4) },
          () => views[Math.floor(random() * newTurnCases.length)]!,
        ).flat(),
      );
    for (const view of views) {
      // Each prefix judged from the carry of the one before (carried only while accepted, as listing does) as it is judged whole.
      let carry = gateCarry([]);
      for (let at = 0, accepted = true; at < view.length && accepted; ) {
        const next = at + 1 + Math.floor(random() * 3);
        const part = [...carry.tail, ...view.slice(at, next)];
        const verdict = transcriptGate(part, carry);
        expect(verdict, JSON.stringify(view.slice(0, next))).toEqual(transcriptGate(view.slice(0, next)));
        accepted = verdict.accepted;
        carry = gateCarry(part, carry);
        at = next;
      }
    }
  });
});

describe('whether arguments are a JSON object, as Go decodes them', () => {
  it('an object, with spaces around it or a key twice, is; anything else, deeper than Go reads included, is not', async () => {
    const { argumentsAreObject } = await import('../../../src/session/replay/transcript-gate.js');
    for (const yes of ['{}', ' {"a":1}\n', '{"a":1,"a":2}', '{"a":[1,{"b":null}]}'])
      expect(argumentsAreObject(yes), yes).toBe(true);
    for (const no of [
      '',
      ' ',
      'null',
      '[]',
      '1',
      '"x"',
      'true',
      '{',
      '{}}',
      '{} x',
      '{}{}',
      `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    ])
      expect(argumentsAreObject(no), no.slice(0, 20)).toBe(false);
  });
  it("a session whose model view is a fixture's takes a new turn", async () => {
    for (const name of ['plain-chat', 'tool-calls', 'compacted', 'interrupted'] as const)
      expect((await readSession(fixture(name).dir)).projection.newTurn, name).toEqual({ accepted: true });
  });
});

describe('what rxstore writes, Reasonix takes a new turn in', () => {
  it('the writer refuses messages after which Reasonix would refuse every new turn, as it refuses payloads Reasonix refuses', async () => {
    const { createSession, appendBatches } = await import('../../../src/index.js');
    const system = {
      kind: 'message/complete',
      payload: { message: { role: 'system', id: 'rx-w-system', content: 'You are helpful.' } },
    };
    await expect(
      createSession({
        storeDir: await tempDir(),
        batches: [{ operationId: 'turn-1', events: [system, refusedCall, itsResult] }],
      }),
    ).rejects.toMatchObject({
      code: 'RX_WRITE_REFUSED',
      message:
        'refused to write batch 1 (operation "turn-1"): Reasonix would open the session but refuse every new turn in it ("transcript gate: tool arguments must be a JSON object at message 1")',
      data: { messageIndex: 1 },
    });
    const { dir } = await createSession({
      storeDir: await tempDir(),
      batches: [{ operationId: 'turn-1', events: [system] }],
    });
    const userCalls = {
      kind: 'message/complete',
      payload: {
        message: {
          role: 'user',
          id: 'rx-w-user',
          content: 'hi',
          tool_calls: [{ id: 'c', name: 'bash', arguments: '{}' }],
        },
      },
    };
    await expect(appendBatches(dir, [{ operationId: 'turn-2', events: [userCalls] }])).rejects.toMatchObject({
      code: 'RX_WRITE_REFUSED',
      data: { messageIndex: 1 },
    });
    expect((await readSession(dir)).projection.modelMessages).toHaveLength(1);
    // A call whose result comes in a later append is taken: Reasonix stands in for a missing result.
    await appendBatches(dir, [
      {
        operationId: 'turn-2',
        events: [
          {
            kind: 'message/complete',
            payload: {
              message: {
                role: 'assistant',
                id: 'rx-w-a',
                content: '',
                tool_calls: [{ id: 'c', name: 'bash', arguments: '{}' }],
              },
            },
          },
        ],
      },
    ]);
    expect((await readSession(dir)).status).toBe('ok');
  });
});

describe('the commands agree on what a session is', () => {
  it('view shows a session Reasonix takes no turn in whole, with no damage, and exits 0; inspect says a session without messages has none', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    await appendBatch(dir, [refusedCall, itsResult]);
    const page = await runCli(['view', dir, '--format', 'md']);
    expect(page.code, page.stderr).toBe(0);
    expect(page.stdout).not.toContain('Reasonix would refuse this session');
    const { createSession } = await import('../../../src/index.js');
    const { dir: empty } = await createSession({
      storeDir: await tempDir(),
      batches: [{ operationId: 'o', events: [{ kind: 'session/title', payload: { title: 'x' } }] }],
    });
    expect((await runCli(['inspect', empty])).stdout).toContain('content      no messages\n');
  });
});
