import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { canonicalTranscript, providerMessages } from '../../../src/session/replay/views.js';
import { copySession } from '../../support/faults/faults.js';
import { fixture, FIXTURE_NAMES } from '../../support/fixtures.js';
import { asSent } from '../../support/reasonix/as-sent.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

describe.skipIf(!reasonixBinary())(reasonixTitle(`rxstore's model view is what Reasonix sends the model`), () => {
  it.concurrent.each(FIXTURE_NAMES)('%s', async (name) => {
    const source = fixture(name);
    const dir = await copySession(source.dir);
    const read = await readSession(dir);
    const expected = providerMessages(read.projection);
    const resumed = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
    try {
      expect(resumed.code, resumed.stderr).toBe(0);
      const sent = resumed.requests[0]!.messages.map(asSent);
      // Reasonix appends the new turn: its host session-context message and the typed prompt.
      expect(sent.at(-1)).toMatchObject({ role: 'user', content: 'Resume check: say ok.' });
      expect(sent.slice(0, -2)).toEqual(expected);
      // The canonical transcript keeps every message of the log, compacted ones included.
      const completed = Object.values(source.counts.messagesByRole).reduce((sum, count) => sum + count, 0);
      expect(canonicalTranscript(read.projection)).toHaveLength(completed);
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
  });
});
