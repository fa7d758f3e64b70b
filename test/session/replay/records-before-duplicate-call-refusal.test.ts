import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { IndexRecord } from '../../../src/session/replay/index-records.js';
import { openSession } from '../../../src/store/open-session.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

// When Reasonix 1.38.11 writes a second tool call under an id the transcript already holds (a provider
// that numbers calls per response), it refuses the session from the second result on. What records()
// yields before that refusal must be what the session says: the new call never gets the earlier
// call's output and exit code.
describe.skipIf(!reasonixBinary())(reasonixTitle('records before a duplicate tool-call refusal'), () => {
  it('a call whose id repeats an earlier one is not given the earlier call’s result', async () => {
    const source = fixture('tool-calls');
    const appended = await resumeWithReasonix(source.dir, {
      workspace: source.workspace,
      prompt: 'List again',
      mock: [
        { toolCalls: [{ id: 'call_ls', name: 'bash', arguments: { command: 'echo again' } }] },
        { text: 'Listed again.' },
      ],
    });
    try {
      expect(appended.code, appended.stderr).toBe(0);
      const session = await openSession(appended.sessionDir);
      const records: IndexRecord[] = [];
      await expect(async () => {
        for await (const record of session.records()) records.push(record);
      }).rejects.toMatchObject({ code: 'RX_STRICT_PAYLOAD' });
      const first = records.find((record) => record.type === 'command' && record.command === 'echo listing && ls');
      const again = records.find((record) => record.type === 'command' && record.command === 'echo again');
      // The first call keeps its own output; the repeated one has none to be given (its result is past the refusal) or its own.
      expect(first).toMatchObject({ type: 'command', exitCode: 0, output: expect.stringContaining('listing') });
      expect(
        again === undefined || (again.type === 'command' && again.output !== (first as { output: string }).output),
      ).toBe(true);
    } finally {
      await rm(appended.home, { recursive: true, force: true });
    }
  });
});
