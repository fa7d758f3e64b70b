// What a replay that keeps only the index (inspect's) holds as a session grows: typed columns and string tables
// whose number stays put, never an object, string or array slot a message. Counted, not weighed: each thing
// reachable from the projection once, so a per-message object (an array of facts, a preview string a message)
// that comes back makes the count grow with the session and fails the test on any machine.
import { describe, expect, it } from 'vitest';
import type { CommittedBatch, StoredEvent } from '../../../src/codec/batch.js';
import { Projection } from '../../../src/session/replay/projection.js';
import { toolResult, typedMessage } from '../../support/sessions/messages.js';

/** Objects, arrays' and maps' slots and strings reachable from `root`; a typed array or buffer counts once. */
function heldThings(root: unknown): number {
  const seen = new Set<object>();
  let count = 0;
  const visit = (value: unknown): void => {
    if (typeof value === 'string') count += 1;
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) return;
    seen.add(value);
    count += 1;
    if (typeof value === 'function' || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return;
    if (value instanceof Map)
      for (const [key, item] of value) {
        visit(key);
        visit(item);
      }
    else if (value instanceof Set) for (const item of value) visit(item);
    else for (const key of Reflect.ownKeys(value)) visit((value as Record<PropertyKey, unknown>)[key]);
  };
  visit(root);
  return count;
}

/**
 * A projection that replayed `turns` turns, as inspect replays a log: each turn a typed message,
 * an assistant message with two tool calls upserted twice (first its calls, then again with its
 * text: the first calls are dead), their results and an answer, in batches of the turn.
 */
function replayed(turns: number): Projection {
  const projection = new Projection({ keep: 'index', previews: true });
  let seq = 0;
  const batch = (turn: number, written: [kind: string, message: object][]): void => {
    const events: StoredEvent[] = written.map(([kind], index) => ({
      id: `e${seq + index + 1}`,
      seq: seq + index + 1,
      kind,
      optional: false,
      required: true,
      offset: (seq + index + 1) * 100,
    }));
    const committed: CommittedBatch = {
      commitId: `commit-${seq}`,
      operationId: `op-${seq}`,
      operationHash: 'h',
      firstSeq: seq + 1,
      eventCount: events.length,
      turnId: `turn-${turn}`,
      writerGeneration: 1,
      createdAt: '2026-12-01T10:00:00Z',
      sha256: '',
      events,
      offset: seq * 100,
      end: (seq + events.length) * 100,
    };
    seq += events.length;
    events.forEach((event, index) => projection.apply(committed, event, { message: written[index]![1] }));
  };
  for (let turn = 0; turn < turns; turn += 1) {
    const calls = [0, 1].map((call) => ({
      id: `call_${turn}_${call}`,
      name: call ? 'read_file' : 'bash',
      arguments: '{}',
    }));
    const asking = { role: 'assistant', id: `a${turn}`, content: '', tool_calls: calls };
    batch(turn, [['message/complete', typedMessage(`u${turn}`, `please look at file ${turn} and fix what fails`)]]);
    batch(turn, [
      ['message/upsert', asking],
      ['message/upsert', { ...asking, content: `I will read file ${turn}` }],
    ]);
    batch(
      turn,
      calls.map((call, at) => ['message/complete', toolResult(`r${turn}_${at}`, call.id, { name: call.name })]),
    );
    batch(turn, [['message/complete', { role: 'assistant', id: `d${turn}`, content: `fixed ${turn}` }]]);
  }
  return projection;
}

describe('a replay that keeps only the index', () => {
  it('holds as many things after 5,000 turns as after 500: nothing a message but numbers in columns', () => {
    const small = replayed(500);
    const large = replayed(5000);
    // What inspect reads at the end is there, and right.
    expect(large.transcriptIndex.length).toBe(5000 * 5);
    expect(large.newTurn).toEqual({ accepted: true });
    expect(large.displayTitle).toEqual(small.displayTitle);
    // 22,500 more messages (45,000 calls and results): a string table's chunk per 256 KiB of ids is all that may come.
    expect(heldThings(large) - heldThings(small)).toBeLessThan(50);
  });

  // 15 messages (0 to 14), then the one Reasonix refuses, at 15.
  it('a gate that refuses is judged from the columns as from the messages', () => {
    const refusal = (call: object) => {
      const projection = replayed(3);
      const late = { role: 'assistant', id: 'late', content: '', tool_calls: [{ id: 'c9', ...call }] };
      const event: StoredEvent = {
        id: 'e',
        seq: 100,
        kind: 'message/complete',
        optional: false,
        required: true,
        offset: 0,
      };
      const batch: CommittedBatch = {
        commitId: 'c',
        operationId: 'o',
        operationHash: 'h',
        firstSeq: 100,
        eventCount: 1,
        writerGeneration: 1,
        createdAt: '2026-12-01T10:00:00Z',
        sha256: '',
        events: [event],
        offset: 0,
        end: 0,
      };
      projection.apply(batch, event, { message: late });
      return projection.newTurn;
    };
    expect(refusal({ name: 'bash', arguments: '[]' })).toEqual({
      accepted: false,
      reason: 'transcript gate: tool arguments must be a JSON object at message 15',
      index: 15,
    });
    expect(refusal({ name: '', arguments: '{}' })).toEqual({
      accepted: false,
      reason: 'transcript gate: invalid tool identity at message 15',
      index: 15,
    });
    // Left without its result, a call is given a stand-in, as Reasonix repairs the request.
    expect(refusal({ name: 'bash', arguments: '{}' })).toEqual({ accepted: true });
  });
});
