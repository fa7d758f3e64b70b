// A JSONL transcript whose `.jsonl.meta` (or another sidecar Reasonix freezes with it) is a FIFO:
// Reasonix 1.38.11 resuming it waits forever (measured: no migration is made in 20 s, where the same
// transcript with a regular meta file is migrated at once). inspect, ls and where must not call it a
// session Reasonix opens, nor print a resume command that hangs.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { tempDir } from '../support/temp-dir.js';
import { repoRoot } from '../support/paths.js';

const source = join(
  repoRoot,
  'fixtures/jsonl-migrated/projects/-tmp-rxstore-fixture-ws-jsonl-migrated/sessions/legacy-demo.jsonl',
);

async function transcriptWithFifo(sidecar: string): Promise<{ stateRoot: string; transcript: string }> {
  const stateRoot = await tempDir('rxstore-fifo-sidecar-');
  const sessions = join(stateRoot, 'projects', '-ws', 'sessions');
  await mkdir(sessions, { recursive: true });
  const transcript = join(sessions, 'legacy-demo.jsonl');
  await cp(source, transcript);
  await cp(`${source}.meta`, `${transcript}.meta`);
  await rm(join(sessions, sidecar), { force: true });
  execFileSync('mkfifo', [join(sessions, sidecar)]);
  return { stateRoot, transcript };
}

describe('a transcript with a FIFO sidecar', () => {
  for (const sidecar of ['legacy-demo.jsonl.meta', 'legacy-demo.goal-state.json']) {
    it(`${sidecar}: inspect refuses it with RX_BLOCKED_FILE naming the FIFO, and ls marks its row`, async () => {
      const { stateRoot, transcript } = await transcriptWithFifo(sidecar);
      const fifo = join(stateRoot, 'projects', '-ws', 'sessions', sidecar);
      const env = { ...process.env, XDG_CACHE_HOME: await tempDir('rxstore-cache-') };
      const inspect = await runCliChild(['inspect', '--json', transcript], { env, killAfterMs: 30_000 });
      expect(inspect.code).toBe(1);
      const read = JSON.parse(inspect.stdout) as { status: string; problems: { code: string; file?: string }[] };
      expect(read.status).toBe('damaged');
      expect(read.problems).toContainEqual(expect.objectContaining({ code: 'RX_BLOCKED_FILE', data: { file: fifo } }));
      const ls = await runCliChild(['ls', '--json', '--state-home', stateRoot], { env, killAfterMs: 30_000 });
      const rows = JSON.parse(ls.stdout) as { status: string; problemCode: string | null; problem: string }[];
      expect(rows).toMatchObject([{ status: 'damaged', problemCode: 'RX_BLOCKED_FILE' }]);
      expect(rows[0]!.problem).toContain(`${sidecar} is a FIFO`);
    }, 60_000);
  }
});
