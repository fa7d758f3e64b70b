// What the transcript gate reads of each message, kept in typed columns: each row gives back the facts that
// went in — through rows rewritten, moved onto others and cut off, and after thousands of dead calls are
// compacted away.
import { describe, expect, it } from 'vitest';
import { StringTable } from '../../../src/compact/string-table.js';
import { GateColumns } from '../../../src/session/replay/gate-columns.js';
import { gateFacts, type GateMessage } from '../../../src/session/replay/transcript-gate.js';

const calling = (...ids: string[]) =>
  gateFacts({
    role: 'assistant',
    tool_calls: ids.map((id) => ({ id, name: id === '' ? '' : 'bash', arguments: id.endsWith('x') ? '[]' : '{}' })),
  });
const result = (call: string | undefined, name?: string) =>
  gateFacts({ role: 'tool', ...(call === undefined ? {} : { tool_call_id: call }), ...(name ? { name } : {}) });

describe('GateColumns', () => {
  it('gives back the facts that went in, a plain message as { role: "" }', () => {
    const facts: (GateMessage | null)[] = [
      gateFacts({ role: 'user' }),
      calling('c1', 'c2x', ''),
      result('c1', 'bash'),
      result(undefined),
      result(''),
      gateFacts({
        role: 'user',
        tool_calls: [{ id: 'u1', name: 'ls', arguments: '{}' }],
        tool_call_id: 'odd',
        name: 'n',
      }),
    ];
    const columns = new GateColumns(new StringTable());
    for (const fact of facts) columns.push(fact);
    expect([...columns]).toEqual(facts.map((fact) => fact ?? { role: '' }));
    expect(facts[0]).toBeNull();
  });

  it('rows rewritten, moved and cut off keep their own facts', () => {
    const columns = new GateColumns(new StringTable());
    columns.push(calling('a1'));
    columns.push(result('a1'));
    columns.push(calling('b1', 'b2'));
    columns.set(1, calling('r1', 'r2x'));
    columns.set(0, null);
    columns.move(2, 0);
    columns.truncate(2);
    expect([...columns]).toEqual([calling('b1', 'b2'), calling('r1', 'r2x')]);
    columns.push(result('b2', 'bash'));
    expect(columns.at(2)).toEqual(result('b2', 'bash'));
  });

  it('after thousands of rows rewritten, each row still has its own calls (the dead ones compacted away)', () => {
    const columns = new GateColumns(new StringTable());
    columns.push(calling('keep1', 'keep2'));
    columns.push(null);
    for (let round = 0; round < 3000; round += 1) columns.set(1, calling(`busy${round}a`, `busy${round}b`));
    columns.push(calling('late'));
    expect([...columns]).toEqual([calling('keep1', 'keep2'), calling('busy2999a', 'busy2999b'), calling('late')]);
  });
});
