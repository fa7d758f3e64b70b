import { spawnSync } from 'node:child_process';
import { chmod, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexSince, machineRoots, type IndexPiece } from '../../src/index.js';
import { repoRoot } from '../support/paths.js';
import { buildStateRoot } from '../support/sessions/state-root.js';

/**
 * A folder of the state root this user may not read (made by another user: Reasonix run once with sudo) says
 * nothing of the sessions under it. An index run keeps those it indexed before, each said with a problem naming
 * the folder, never removed; and a run says in `warnings()` what it could not look at, a first run too.
 * As root every folder is readable: the run is made as `nobody` there.
 */
const asRoot = process.getuid?.() === 0;
const hasSetpriv = spawnSync('setpriv', ['--version']).status === 0;

/** An index run over the state root as another user, from `checkpoint`: its pieces and warnings, as JSON. */
function runAsOther(stateRoot: string, checkpoint: unknown): { pieces: IndexPiece[]; warnings: string[] } {
  const script = `
    const { indexSince, machineRoots } = await import(${JSON.stringify(join(repoRoot, 'dist', 'bundle', 'index.js'))});
    const { inputs, roots } = await machineRoots({ stateHome: process.argv[1], env: {}, homeDir: process.argv[1] });
    const run = indexSince(roots.roots, { platform: inputs.platform, checkpoint: JSON.parse(process.argv[2]) ?? undefined });
    const pieces = [];
    for await (const piece of run) pieces.push(piece);
    process.stdout.write(JSON.stringify({ pieces, warnings: run.warnings() }));`;
  const argv = ['--input-type=module', '-e', script, stateRoot, JSON.stringify(checkpoint ?? null)];
  const run = asRoot
    ? spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...argv], {
        encoding: 'utf8',
        cwd: '/',
      })
    : spawnSync(process.execPath, argv, { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { pieces: IndexPiece[]; warnings: string[] };
}

/** A machine every user may read, its sessions indexed once (as this user): the checkpoint, and each session's path. */
async function indexedMachine(): Promise<{ stateRoot: string; checkpoint: unknown; paths: string[] }> {
  const machine = await buildStateRoot();
  const open = async (folder: string): Promise<void> => {
    await chmod(folder, 0o755);
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) await open(join(folder, entry.name));
      else await chmod(join(folder, entry.name), 0o644);
    }
  };
  await chmod(machine.home, 0o755);
  await open(machine.stateRoot);
  const { inputs, roots } = await machineRoots({ stateHome: machine.stateRoot, env: {}, homeDir: machine.stateRoot });
  const run = indexSince(roots.roots, { platform: inputs.platform });
  const paths = new Set<string>();
  for await (const piece of run) paths.add(piece.session.path);
  return { stateRoot: machine.stateRoot, checkpoint: JSON.parse(JSON.stringify(run.checkpoint())), paths: [...paths] };
}

describe.skipIf(asRoot && !hasSetpriv)('an index run where a folder may not be read', () => {
  it.each([
    ['a project folder it may not list', 'projects/-tmp-rxstore-fixture-ws-plain-chat', 0o700, false],
    [
      'a store folder it may list but not search',
      'projects/-tmp-rxstore-fixture-ws-plain-chat/sessions-v4',
      0o744,
      true,
    ],
  ])('%s: its sessions are kept, each said with a problem; never removed', async (_, folder, mode, listed) => {
    const { stateRoot, checkpoint, paths } = await indexedMachine();
    const blocked = join(stateRoot, folder);
    const under = paths.filter((path) => path.startsWith(`${blocked}/`));
    expect(under.length).toBeGreaterThan(0);
    await chmod(blocked, mode);
    const saidOf = (run: { pieces: IndexPiece[] }) => {
      // Each session under the folder kept (nothing removed), and said.
      const kept = run.pieces.filter((piece) => piece.session.path.startsWith(`${blocked}/`));
      for (const piece of kept) {
        expect(piece.records).toEqual([]);
        expect(piece.problem).toMatchObject({
          code: 'RX_FILE_SYSTEM',
          message: expect.stringContaining('permission denied'),
        });
      }
      return kept.map((piece) => piece.session.path).sort();
    };
    const again = runAsOther(stateRoot, checkpoint);
    expect(saidOf(again)).toEqual(under.sort());
    // A first run, with nothing indexed: a folder it could not list is a warning; sessions it listed are said.
    const first = runAsOther(stateRoot, undefined);
    expect(saidOf(first)).toEqual(listed ? under.sort() : []);
    if (!listed) for (const run of [again, first]) expect(run.warnings.join('\n')).toContain(blocked);
    await chmod(blocked, 0o755);
  });
});
