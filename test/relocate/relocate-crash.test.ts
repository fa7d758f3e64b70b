import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../src/session/verdict/read-session.js';
import { readJsonlSession } from '../../src/store/jsonl/read-jsonl-session.js';
import { rxstoreBin, runNodeChild } from '../support/cli-child.js';
import { crashTrials } from '../support/faults/crash-trials.js';
import { forEachHit, killAtFailPoint, traceFailPoints } from '../support/faults/fail-points.js';
import { jsonlOf, movedProject, storeOf, type MovedProject } from '../support/sessions/relocation-fixture.js';

const argvOf = (project: MovedProject) => [rxstoreBin, 'relocate', project.from, project.to, '--home', project.home];

/** Every session is whole in exactly one place: the old workspace's store or the new one's, never both, never neither. */
async function eachSessionInOnePlace(project: MovedProject): Promise<void> {
  const { home, from, to } = project;
  for (const id of project.v4) {
    const places: string[] = [];
    for (const store of [storeOf(home, from), storeOf(home, to)])
      if ((await readdir(store).catch(() => [] as string[])).includes(id)) places.push(join(store, id));
    expect(places, id).toHaveLength(1);
    expect((await readSession(places[0]!)).status, places[0]).toBe('ok');
  }
  const transcripts: string[] = [];
  for (const dir of [jsonlOf(home, from), jsonlOf(home, to)])
    if ((await readdir(dir).catch(() => [] as string[])).includes(`${project.jsonl}.jsonl`))
      transcripts.push(join(dir, `${project.jsonl}.jsonl`));
  expect(transcripts).toHaveLength(1);
  expect((await readJsonlSession(transcripts[0]!)).status).toBe('ok');
}

/** The move finished: all under the new slug, the old slug's folder and the journal gone, the recorded workspace the new folder. */
async function moveFinished(project: MovedProject): Promise<void> {
  const { home, from, to } = project;
  await expect(readdir(join(home, 'projects'))).resolves.toEqual([to.replace(/\//g, '-')]);
  await expect(readdir(home)).resolves.not.toContain('.rxstore-relocation.json');
  for (const id of project.v4) expect((await readSession(join(storeOf(home, to), id))).status).toBe('ok');
  expect(JSON.parse(await readFile(join(storeOf(home, to), project.v4[0]!, 'header.json'), 'utf8')).cwd).toBe(to);
  expect(
    JSON.parse(await readFile(join(jsonlOf(home, to), `${project.jsonl}.jsonl.meta`), 'utf8')).workspace_root,
  ).toBe(to);
  expect(JSON.parse(await readFile(join(home, 'desktop', 'workspace-state-v1.json'), 'utf8')).workspaces.w1.root).toBe(
    to,
  );
  expect(from).not.toBe(to);
}

/** A run again after a crash finishes the move; after a crash past the last step there is nothing left to move, and it says so (exit 0). */
async function rerun(project: MovedProject): Promise<void> {
  const run = await runNodeChild(argvOf(project));
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/moved \d+ sessions?|nothing left to relocate/);
}

describe('relocate, killed at any point', () => {
  it('leaves each session whole in one place at every fail point, and a re-run finishes the move', async () => {
    const hits = await traceFailPoints(argvOf(await movedProject()));
    expect(hits.map((hit) => hit.name)).toEqual(
      expect.arrayContaining([
        'relocate.journal-written',
        'relocate.content-linked',
        'relocate.session-renamed',
        'relocate.header',
        'relocate.transcript-file-moved',
        'relocate.meta',
        'relocate.map-carried',
        'relocate.registry',
        'relocate.old-cleared',
      ]),
    );
    await forEachHit(hits, 4, async (point) => {
      const project = await movedProject();
      await killAtFailPoint(argvOf(project), point);
      await eachSessionInOnePlace(project);
      await rerun(project);
      await moveFinished(project);
    });
  }, 600_000);

  it('survives SIGKILL at random moments', async () => {
    const projects = new Map<number, MovedProject>();
    const { killed } = await crashTrials({
      trials: 12,
      parallel: 2,
      seed: 40,
      prepare: async (trial) => {
        const project = await movedProject();
        projects.set(trial, project);
        return argvOf(project);
      },
      // After a run that finished before its kill, the re-run says the move is done (exit 0).
      verify: async (trial) => {
        const project = projects.get(trial)!;
        await eachSessionInOnePlace(project);
        await rerun(project);
        await moveFinished(project);
      },
    });
    expect(killed).toBeGreaterThan(0);
  }, 600_000);
});
