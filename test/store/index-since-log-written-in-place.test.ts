// indexSince over a session whose log was written in place since the checkpoint, its size kept:
// the session reads as unchanged to its size, so its cursor's stamp of the log is what tells the
// run to verify the log again before it calls the session caught up.
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexSince, machineRoots, type IndexPiece } from '../../src/index.js';
import { flipInPlace, putBack } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

/** One run over a state root: its pieces, and its checkpoint as stored JSON. */
async function run(stateHome: string, checkpoint?: string): Promise<{ pieces: IndexPiece[]; checkpoint: string }> {
  const { inputs, roots } = await machineRoots({ stateHome, env: {}, homeDir: stateHome });
  const indexRun = indexSince(roots.roots, {
    platform: inputs.platform,
    checkpoint: checkpoint === undefined ? undefined : JSON.parse(checkpoint),
  });
  const pieces: IndexPiece[] = [];
  for await (const piece of indexRun) pieces.push(piece);
  return { pieces, checkpoint: JSON.stringify(indexRun.checkpoint()) };
}

describe('indexSince on a session whose log was written in place since the checkpoint', () => {
  it('a byte flipped mid-log is the problem a run with no checkpoint meets; a copy put back is caught up', async () => {
    const source = fixture('tool-calls');
    const root = join(await tempDir('rxstore-index-inplace-'), 'tool-calls');
    await cp(source.root, root, { recursive: true });
    const dir = join(root, source.sessionDir);
    const first = await run(root);
    expect(first.pieces.filter((piece) => piece.problem)).toEqual([]);
    // Unchanged: nothing.
    expect((await run(root, first.checkpoint)).pieces).toEqual([]);

    const original = await flipInPlace(dir);
    const fresh = (await run(root)).pieces.filter((piece) => piece.problem);
    expect(fresh.map((piece) => piece.problem!.code)).toHaveLength(1);
    const since = await run(root, first.checkpoint);
    expect(since.pieces.map((piece) => [piece.session.path, piece.records, piece.problem])).toEqual([
      [dir, [], fresh[0]!.problem],
    ]);
    expect(since.pieces[0]!.session.status).toBe(fresh[0]!.session.status);
    // The checkpoint still stands before the damage: the next run meets it again.
    expect(since.checkpoint).toBe(first.checkpoint);

    await putBack(dir, original);
    const back = await run(root, first.checkpoint);
    expect(back.pieces.flatMap((piece) => [...piece.records, ...(piece.problem ? [piece.problem] : [])])).toEqual([]);
    // Its checkpoint carries the log's new stamp: the run after it reads nothing and gives nothing.
    expect(back.checkpoint).not.toBe(first.checkpoint);
    expect((await run(root, back.checkpoint)).pieces).toEqual([]);
  });

  it('a manifest removed or made unsupported since the checkpoint is the problem a run with no checkpoint meets', async () => {
    const source = fixture('tool-calls');
    const root = join(await tempDir('rxstore-index-manifest-'), 'tool-calls');
    await cp(source.root, root, { recursive: true });
    const dir = join(root, source.sessionDir);
    const manifest = join(dir, 'manifest.json');
    const first = await run(root);
    const kept = await readFile(manifest, 'utf8');
    for (const edit of [
      () => rm(manifest),
      () => writeFile(manifest, kept.replace(/"storageRevision":\s*\d+/, '"storageRevision":9')),
    ]) {
      await edit();
      const fresh = (await run(root)).pieces.filter((piece) => piece.problem);
      expect(fresh).toHaveLength(1);
      const since = await run(root, first.checkpoint);
      expect(since.pieces.map((piece) => [piece.session.path, piece.records, piece.problem])).toEqual([
        [dir, [], fresh[0]!.problem],
      ]);
      expect(since.pieces[0]!.session.status).toBe(fresh[0]!.session.status);
      await writeFile(manifest, kept);
    }
  });
});
