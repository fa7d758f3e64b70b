// An indexer polls every session of a machine: a caught-up run checks each session's cursor or
// stamp with a few synchronous stats. Such a run over many sessions must let a timer, a signal or
// I/O in between sessions, or a stop asked for waits for the whole run.
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexSince, machineRoots } from '../../src/index.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const TRANSCRIPTS = 40;

describe('a caught-up indexSince run over many sessions', () => {
  it('lets the event loop turn between sessions, so a timer armed at a piece fires before the run ends', async () => {
    const source = join(fixture('jsonl-migrated').dir, '..', '..', 'sessions', 'legacy-demo.jsonl');
    const root = await tempDir('rxstore-index-loop-');
    const sessions = join(root, 'projects', '-tmp-rxstore-index-loop', 'sessions');
    await mkdir(sessions, { recursive: true });
    const names = Array.from({ length: TRANSCRIPTS }, (_, at) => `loop-${String(at).padStart(2, '0')}`);
    for (const name of names) await copyFile(source, join(sessions, `${name}.jsonl`));
    const { inputs, roots } = await machineRoots({ stateHome: root, env: {}, homeDir: root });
    const first = indexSince(roots.roots, { platform: inputs.platform });
    const order: string[] = [];
    for await (const piece of first) if (!order.includes(piece.session.id)) order.push(piece.session.id);
    expect(order).toHaveLength(TRANSCRIPTS);
    const checkpoint = JSON.parse(JSON.stringify(first.checkpoint())) as unknown;

    // Only the first session read changed: every other one is a synchronous stat that finds it unchanged.
    await writeFile(join(sessions, `${order[0]}.jsonl`), '\n', { flag: 'a' });
    const second = indexSince(roots.roots, { platform: inputs.platform, checkpoint });
    let done = false;
    let firedBeforeTheEnd: boolean | undefined;
    let pieces = 0;
    for await (const piece of second) {
      pieces += 1;
      expect(piece.session.id).toBe(order[0]);
      // Armed once the changed session is given: what is left of the run is the unchanged sessions.
      if (pieces === 1) setImmediate(() => (firedBeforeTheEnd = !done));
    }
    done = true;
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(pieces).toBeGreaterThan(0);
    expect(firedBeforeTheEnd, 'the timer waited for the whole run').toBe(true);
  });
});
