import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BatchToWrite } from '../../../src/codec/encode-batch.js';
import { createSession } from '../../../src/session/writing/create-session.js';
import type { SessionWhereabouts } from '../../../src/store/locate-session.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { reasonixBinary, reasonixTitle, simpleWorkspaceSlug } from '../../support/reasonix/reasonix.js';
import { complete, messageId } from '../../support/sessions/sample-session.js';
import { createdBatch, resumeCheck } from '../../support/reasonix/resume-check.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * A session made and never spoken in (no turn, title or message of the person's) is found by `reasonix --resume
 * <id>` until any Reasonix run in its workspace writes the store's catalog; from then on Reasonix passes over it
 * (`no session matches`), until the catalog entry no longer matches its log. `rxstore where` must say what
 * Reasonix 1.38.11 does at each step, judged by running it.
 */
const spoken = 'aa000000000000000000000000000001';
const empty = 'bb000000000000000000000000000002';
const created = createdBatch;
const homes: string[] = [];

async function stateWithTwoSessions(
  emptyBatches: BatchToWrite[] = [],
): Promise<{ home: string; workspace: string; store: string }> {
  const home = await tempDir('rxstore-passed-over-');
  // Outside the home, so that a copy of the home keeps the workspace and its slug.
  const workspace = await tempDir('rxstore-passed-over-ws-');
  homes.push(home, workspace);
  const store = join(home, 'projects', simpleWorkspaceSlug(workspace), 'sessions-v4');
  await mkdir(store, { recursive: true });
  const said = { operationId: 'said', events: [complete({ role: 'user', id: messageId(), content: 'hello' })] };
  await createSession({ storeDir: store, sessionId: spoken, batches: [created, said] });
  await createSession({ storeDir: store, sessionId: empty, batches: [created, ...emptyBatches] });
  return { home, workspace, store };
}

const resume = resumeCheck;

async function whereVerdict(home: string, workspace: string, id: string) {
  const where = await runCli(['where', id, '--json', '--state-home', home, '--cwd', workspace]);
  expect(where.code, where.stderr).toBe(0);
  const [found] = JSON.parse(where.stdout) as SessionWhereabouts[];
  return found!.resume;
}

async function copyOf(home: string): Promise<string> {
  const copy = await tempDir('rxstore-passed-over-copy-');
  homes.push(copy);
  await cp(home, copy, { recursive: true });
  return copy;
}

afterAll(async () => {
  await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
});

describe.skipIf(!reasonixBinary())(
  reasonixTitle('an empty session after a Reasonix run, judged by Reasonix 1.38.11'),
  () => {
    it('is found before the catalog holds it, passed over once it does, found again without its entry', async () => {
      const { home, workspace, store } = await stateWithTwoSessions();
      // Before any run: found, as `where` says.
      expect(await whereVerdict(home, workspace, empty)).toMatchObject({ reason: 'resumes', resumes: true });
      const before = await copyOf(home);
      expect((await resume(before, workspace, empty)).code).toBe(0);

      // A run in the workspace, of the other session, writes the catalog: the empty one is passed over.
      expect((await resume(home, workspace, spoken)).code).toBe(0);
      const passed = await whereVerdict(home, workspace, empty);
      expect(passed).toMatchObject({ reason: 'passed-over-as-empty', resumes: false, command: null });
      expect(passed.explanation).toContain('no session matches');
      // Run on the state itself: a copy would change the log's time, which the entry then no longer matches.
      const refused = await resume(home, workspace, empty);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`no session matches "${empty}"`);

      // Its catalog entry taken away: found again.
      await rm(join(store, '.query-cache', empty), { recursive: true });
      expect(await whereVerdict(home, workspace, empty)).toMatchObject({ reason: 'resumes', resumes: true });
      expect((await resume(home, workspace, empty)).code).toBe(0);
    });

    const titled = (title: string): BatchToWrite => ({
      operationId: 'titled',
      events: [{ kind: 'session/title', payload: { title } }],
    });
    it.concurrent.each([
      // Reasonix trims a title as Go's strings.TrimSpace does: one of white space is none.
      { what: 'a title of white space', batches: [titled(' \u0085 ')], edit: (entry: string) => entry, passed: true },
      { what: 'a title', batches: [titled('named')], edit: (entry: string) => entry, passed: false },
      // Read as Go reads it: a missing field is its zero value, a key in another case is the field.
      {
        what: 'an entry without its turns, its log size keyed in capitals',
        batches: [],
        edit: (entry: string) => entry.replace('"turns":0,', '').replace('"logSize"', '"LOGSIZE"'),
        passed: true,
      },
      // Fields rxstore does not use are read too: one Reasonix cannot decode makes it build the entry again.
      {
        what: 'an entry whose title sequence is no number',
        batches: [],
        edit: (entry: string) => entry.replace('{', '{"titleSequence":"x",'),
        passed: false,
      },
      // Every digit of the log's time counts, past what a double holds.
      {
        what: "an entry whose log time is a nanosecond off the log's",
        batches: [],
        edit: (entry: string) =>
          entry.replace(/"logModTimeNs":(\d+)/, (_, ns: string) => `"logModTimeNs":${BigInt(ns) + 1n}`),
        passed: false,
      },
    ])('$what: where says what Reasonix does', async ({ batches, edit, passed }) => {
      const { home, workspace, store } = await stateWithTwoSessions(batches);
      expect((await resume(home, workspace, spoken)).code).toBe(0);
      const entryPath = join(store, '.query-cache', empty, 'catalog-metadata.json');
      const entry = await readFile(entryPath, 'utf8');
      expect(edit(entry) !== entry || batches.length > 0).toBe(true);
      await writeFile(entryPath, edit(entry));
      expect(await whereVerdict(home, workspace, empty)).toMatchObject({
        reason: passed ? 'passed-over-as-empty' : 'resumes',
      });
      const run = await resume(home, workspace, empty);
      expect(run.code, run.stderr).toBe(passed ? 1 : 0);
    });
  },
);
