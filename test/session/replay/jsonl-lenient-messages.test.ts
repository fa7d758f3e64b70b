import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSession } from '../../../src/index.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * A JSONL transcript's messages are decoded as Reasonix's JSONL loader decodes them: keys it does
 * not know are dropped at any depth (the v4 reader would refuse them), a value of the wrong type
 * stops the transcript at its line, and OpenAI's nested tool-call form is read flat. What is read is what
 * Reasonix's migration writes again (test/reasonix/writes/jsonl-nested-objects-migrate-as-reasonix).
 */
async function transcript(lines: unknown[]): Promise<string> {
  const file = join(await tempDir(), 'lenient.jsonl');
  await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return file;
}

describe('JSONL messages are read leniently, as Reasonix loads them', () => {
  it('unknown keys are dropped at every depth, and a nested tool call is read flat', async () => {
    const file = await transcript([
      { role: 'system', content: 'You are helpful.', bogus_key: 1 },
      { role: 'user', content: 'run ls' },
      {
        role: 'assistant',
        content: 'Listing.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' }, extra: true },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'c1',
        name: 'bash',
        content: 'README.md\n',
        tool_execution: { exitCode: 0, state: 'completed', extra: 1 },
        decision_receipt: { id: 'r', more: 1 },
        memoryCitations: [{ id: 'm', x: 1 }],
        vision_summary: { summary: 's', y: 2 },
      },
    ]);
    const session = await openSession(file);
    const read = await session.read();
    expect(read.status).toBe('ok');
    const messages = read.projection.transcript.map(({ message }) => message);
    expect(messages.map(({ id: _id, ...rest }) => rest)).toEqual([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'run ls' },
      {
        role: 'assistant',
        content: 'Listing.',
        tool_calls: [{ id: 'c1', name: 'bash', arguments: '{"command":"ls"}' }],
      },
      {
        role: 'tool',
        tool_call_id: 'c1',
        name: 'bash',
        content: 'README.md\n',
        tool_execution: { exitCode: 0, state: 'completed', supportsAndAnd: false },
        // As Go writes its structs again: the fields without `omitempty` with their zero values.
        decision_receipt: { id: 'r', kind: '', outcome: '' },
        memoryCitations: [{ id: 'm', source: '' }],
        vision_summary: {
          version: 0,
          prompt_version: '',
          model_ref: '',
          image_digests: null,
          summary: 's',
          created_at: 0,
        },
      },
    ]);
    const person = [];
    for await (const message of session.personView()) person.push(message);
    expect(person[2]!.toolCalls).toEqual([{ id: 'c1', name: 'bash', arguments: '{"command":"ls"}' }]);
  });

  it('a value of the wrong type stops the transcript at its line, nested ones included', async () => {
    const cases: [unknown, string][] = [
      [
        { role: 'user', content: 'bad', createdAt: 'yesterday' },
        'createdAt: Invalid input: expected number, received string',
      ],
      [
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 7 }] },
        'tool_calls.0.name: Invalid input: expected string, received number',
      ],
      [
        { role: 'tool', content: '', tool_execution: { exitCode: 'zero' } },
        'tool_execution.exitCode: Invalid input: expected number, received string',
      ],
    ];
    for (const [line, cause] of cases) {
      const file = await transcript([
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'hi' },
        line,
      ]);
      const read = await (await openSession(file)).read();
      expect(read.status).toBe('damaged');
      expect(read.refusal).toMatchObject({ code: 'RX_JSONL_LINE', data: { file, line: 3 } });
      expect(
        read.refusal!.message.startsWith(`line 3: not a message: ${cause}; the line reads: `),
        read.refusal!.message,
      ).toBe(true);
      expect(read.projection.transcript).toHaveLength(2);
    }
  });
});
