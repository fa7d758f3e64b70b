import { readFile, rm, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import { framesOf, logOf } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { layForResume } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

// A log only ever grows when a batch is appended: one whose size did not change but whose bytes did
// was not appended to, so the summary cache has nothing to vouch for and `ls` must read it whole.
let cacheBefore: string | undefined;
let home: string;
beforeEach(async () => {
  cacheBefore = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = await tempDir('rxstore-cache-');
  home = await tempDir('rxstore-same-size-');
});
afterEach(async () => {
  process.env.XDG_CACHE_HOME = cacheBefore;
  await rm(home, { recursive: true, force: true });
});

async function ls(...extra: string[]): Promise<{ code: number | null; rows: ListedSession[] }> {
  const run = await runCli(['ls', '--state-home', home, '--json', ...extra]);
  return { code: run.code, rows: JSON.parse(run.stdout) as ListedSession[] };
}

it('ls with a warm cache does not call a log ok whose middle changed in place (same size, nothing appended)', async () => {
  const source = fixture('tool-calls');
  const dir = await layForResume(source.dir, home, source.workspace);
  const first = await ls();
  expect(first.rows.find((row) => row.id === source.id)).toMatchObject({ status: 'ok', checked: 'now' });

  // Flip one byte inside a middle frame's body: the log keeps its size, Reasonix refuses it (CRC check failed).
  const frames = await framesOf(dir);
  const frame = frames[Math.floor(frames.length / 2)]!;
  const log = await readFile(logOf(dir));
  const at = frame.offset + 12 + Math.floor((frame.bytes - 12) / 2);
  log[at] = log[at]! ^ 0xff;
  await writeFile(logOf(dir), log);

  const whole = await ls('--no-cache');
  expect(whole.rows.find((row) => row.id === source.id)).toMatchObject({ status: 'damaged', checked: 'now' });
  const cached = await ls();
  expect(cached.rows.find((row) => row.id === source.id)).toMatchObject({ status: 'damaged', checked: 'now' });
});
