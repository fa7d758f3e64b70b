import { describe, expect, it } from 'vitest';
import { appendBatch, copySession } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { raw } from '../support/sessions/payload-rules.js';

/**
 * A key written twice in a message is applied twice, as Reasonix's decoder applies it (the second decoded into
 * what the first set): the page shows the message Reasonix holds, and sends the model, as `cat` shows it.
 */
describe('view of a message with a key written twice', () => {
  it('shows the merged message, its text and its call as Reasonix holds them', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    await appendBatch(dir, [
      raw(
        'message/complete',
        '{"message":{"role":"assistant","id":"m1","content":"first"},"message":{"content":"MERGED"}}',
      ),
      raw(
        'message/complete',
        '{"message":{"role":"assistant","id":"m2","content":"KEPT","content":null,"tool_calls":[{"id":"c1","name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}],"tool_calls":[{"diff":"d"}]}}',
      ),
      raw(
        'message/complete',
        '{"message":{"role":"tool","id":"m3","tool_call_id":"c1","name":"bash","content":"OUTPUT"}}',
      ),
    ]);
    const view = await runCli(['view', dir, '--format', 'md']);
    const cat = await runCli(['cat', dir]);
    expect(view.code, view.stderr).toBe(0);
    for (const text of ['MERGED', 'KEPT', 'OUTPUT']) {
      expect(view.stdout).toContain(text);
      expect(cat.stdout).toContain(text);
    }
    expect(view.stdout).not.toContain('unnamed tool');
    expect(view.stdout).not.toContain('no result');
  });
});
