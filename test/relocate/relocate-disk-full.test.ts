import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../src/session/verdict/read-session.js';
import { rxstoreBin, runNodeChild } from '../support/cli-child.js';
import { forEachHit, traceFailPoints } from '../support/faults/fail-points.js';
import { jsonlOf, movedProject, storeOf } from '../support/sessions/relocation-fixture.js';

/** Every path under a folder, relative to it. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true }).catch(() => [] as string[])).map(String).sort();
}

describe('relocate --keep on a disk that fills mid-copy', () => {
  it('leaves no part-copied file, under any name, and a re-run finishes with whole copies', async () => {
    const argvOf = (home: string, from: string, to: string) => [
      rxstoreBin,
      'relocate',
      from,
      to,
      '--home',
      home,
      '--keep',
    ];
    const first = await movedProject();
    const copies = (await traceFailPoints(argvOf(first.home, first.from, first.to))).filter(
      (hit) => hit.name === 'relocate.copy',
    );
    expect(copies.length).toBeGreaterThan(3);
    await forEachHit(copies, 2, async (point) => {
      const { home, from, to, v4, jsonl } = await movedProject();
      const full = await runNodeChild(argvOf(home, from, to), {
        env: { ...process.env, RXSTORE_FAIL_POINT: `relocate.copy:${point.hit}:enospc` },
      });
      expect(full.code, full.stderr).toBe(1);
      expect(full.stderr).toContain('no space left on device');
      const left = await tree(join(home, 'projects'));
      expect(left.filter((path) => path.includes('rxstore-relocating'))).toEqual([]);
      const transcript = join(jsonlOf(home, to), `${jsonl}.jsonl`);
      const original = await readFile(join(jsonlOf(home, from), `${jsonl}.jsonl`));
      if (
        left.some((path) => path.endsWith(`${jsonl}.jsonl`) && path.includes(join(to.replace(/\//g, '-'), 'sessions')))
      )
        expect(await readFile(transcript)).toEqual(original);

      const again = await runNodeChild(argvOf(home, from, to));
      expect(again.code, again.stderr).toBe(0);
      expect(await readFile(transcript)).toEqual(original);
      for (const id of v4) expect((await readSession(join(storeOf(home, to), id))).status).toBe('ok');
    });
  }, 300_000);
});
