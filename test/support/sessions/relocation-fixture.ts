import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSession } from '../../../src/session/writing/create-session.js';
import { workspaceSlug } from '../../../src/store/roots/workspace-slug.js';
import { sampleBatches } from './sample-session.js';
import { freezeLegacySource } from '../../../src/store/jsonl/legacy-source.js';
import { tempDir } from '../temp-dir.js';

/** A state root holding a moved project's sessions: its old folder (gone) and new one (there). */
export interface MovedProject {
  base: string;
  home: string;
  from: string;
  to: string;
  /** sessions-v4 ids under the old slug; the first has a header.json naming the old folder. */
  v4: string[];
  /** The JSONL transcript under the old slug, with its .jsonl.meta and a title. */
  jsonl: string;
}

export const storeOf = (home: string, folder: string) =>
  join(home, 'projects', workspaceSlug(folder, 'linux'), 'sessions-v4');
export const jsonlOf = (home: string, folder: string) =>
  join(home, 'projects', workspaceSlug(folder, 'linux'), 'sessions');

/** Sessions written under `folder`'s slug: `count` sessions-v4 (content-store payloads included), the first with a header. */
export async function sessionsUnder(home: string, folder: string, count: number, prefix: string): Promise<string[]> {
  const store = storeOf(home, folder);
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const id = `${prefix}${String(index).padStart(32 - prefix.length, '0')}`;
    await createSession({ storeDir: store, sessionId: id, batches: sampleBatches() });
    ids.push(id);
  }
  await writeFile(
    join(store, ids[0]!, 'header.json'),
    `{"schemaVersion":1,"sessionId":${JSON.stringify(ids[0])},"createdAt":"2026-11-30T05:50:59.806232714Z","cwd":${JSON.stringify(folder)},"origin":"new"}\n`,
  );
  return ids;
}

/** A JSONL transcript of `folder`, its meta naming it, its title in `.titles.json`, and a migration-map entry for it. */
export async function transcriptUnder(home: string, folder: string, id: string): Promise<void> {
  const dir = jsonlOf(home, folder);
  await mkdir(dir, { recursive: true });
  const lines = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'Hello from JSONL.' },
    { role: 'assistant', content: 'Hi.' },
  ];
  await writeFile(join(dir, `${id}.jsonl`), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  await writeFile(
    join(dir, `${id}.jsonl.meta`),
    `${JSON.stringify({ id, created_at: '2026-11-01T08:00:00Z', updated_at: '2026-11-01T08:00:00Z', scope: 'project', workspace_root: folder, custom_title: 'A & B <x>' }, null, 2)}\n`,
  );
  await writeFile(join(dir, '.titles.json'), `${JSON.stringify({ [`${id}.jsonl`]: 'JSONL title' }, null, 2)}\n`);
}

/** A moved project: two sessions-v4 sessions and one JSONL transcript under the old folder's slug, a migration map, a desktop registry. */
export async function movedProject(options: { from?: string; to?: string } = {}): Promise<MovedProject> {
  const base = await realpath(await tempDir('rxstore-relocate-'));
  const home = join(base, 'home');
  const from = options.from ?? join(base, 'src', 'app');
  const to = options.to ?? join(base, 'work', 'app');
  await mkdir(to, { recursive: true });
  const v4 = await sessionsUnder(home, from, 2, 'a');
  const jsonl = 'legacy-transcript';
  await transcriptUnder(home, from, jsonl);
  // Imported as it is now: the map names its digest as Reasonix takes it.
  const imported = await freezeLegacySource(join(jsonlOf(home, from), `${jsonl}.jsonl`));
  const map = {
    schemaVersion: 4,
    entries: [
      {
        sourcePath: join(jsonlOf(home, from), `${jsonl}.jsonl`),
        sourceSize: imported.size,
        sourceSha256: imported.sha256,
        targetCodec: 'reasonix.session.linear/v4',
        targetId: v4[1],
        createdAt: '2026-11-01T08:00:00Z',
      },
    ],
  };
  await writeFile(join(storeOf(home, from), 'migration-map.json'), `${JSON.stringify(map, null, 2)}\n`);
  await mkdir(join(home, 'desktop'), { recursive: true });
  const registry = {
    version: 3,
    workspaces: {
      w1: { id: 'w1', root: from, title: 'app', sessionIds: [v4[0]] },
      w2: { id: 'w2', root: `${from}-docker`, title: 'docker', sessionIds: [] },
    },
    sourceMappings: {},
  };
  await writeFile(join(home, 'desktop', 'workspace-state-v1.json'), `${JSON.stringify(registry)}\n`);
  return { base, home, from, to, v4, jsonl };
}
