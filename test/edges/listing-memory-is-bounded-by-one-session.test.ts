// A listing finds every copy before it reads one: what it keeps of each copy's metadata files until
// it is done must not grow with their size, or a machine of many large manifests (a key Reasonix
// ignores, holding megabytes) runs a listing out of memory: a V8 crash, not a coded line.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const MiB = 1024 * 1024;

describe('ls over many sessions whose manifests are large', () => {
  it('keeps memory to about one manifest, not all of them, and lists them', async () => {
    const source = fixture('payload-ref');
    const stateRoot = await tempDir('rxstore-large-manifests-');
    const copies = 12;
    for (let at = 0; at < copies; at += 1) {
      // One session in each of twelve workspaces' stores: twelve copies of one conversation.
      // Its store whole: the session's payloads are in the store's content folder.
      const store = join(stateRoot, 'projects', `-ws-${at}`, 'sessions-v4');
      await mkdir(dirname(store), { recursive: true });
      await cp(dirname(source.dir), store, { recursive: true });
      const manifestPath = join(store, basename(source.dir), 'manifest.json');
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, unknown>;
      // Go ignores a key its struct lacks: Reasonix opens the session as it is.
      await writeFile(manifestPath, JSON.stringify({ ...manifest, note: 'x'.repeat(12 * MiB) }));
    }
    const run = await runCliChild(['ls', '--no-cache', '--json', '--state-home', stateRoot], {
      env: {
        ...process.env,
        XDG_CACHE_HOME: await tempDir('rxstore-cache-'),
        // Twelve manifests of 12 MiB, text and value each, are far more than this; one is far less.
        NODE_OPTIONS: '--max-old-space-size=128',
      },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as { id: string; status: string; copies: unknown[] }[];
    expect(rows).toMatchObject([{ id: source.id, status: 'ok' }]);
    expect(rows[0]!.copies).toHaveLength(copies);
  }, 120_000);
});
