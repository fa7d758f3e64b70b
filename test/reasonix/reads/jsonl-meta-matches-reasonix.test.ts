import { appendFile, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listSessions } from '../../../src/store/listing/list-sessions.js';
import type { ListedSession } from '../../../src/store/listing/describe-conversation.js';
import { transcriptIn } from '../../support/reasonix/jsonl-transcript.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { listSessionDirs, reasonixBinary, reasonixTitle, runReasonix } from '../../support/reasonix/reasonix.js';
import { migrateJsonlToV4 } from '../../../src/migrate/jsonl-to-v4.js';
import { salvageTranscript } from '../../../src/migrate/salvage-transcript.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * A transcript's `.jsonl.meta` is read as Reasonix 1.38.11 reads it, judged by the title Reasonix finds the
 * session by: `reasonix run --resume <words>` resumes a JSONL session whose title holds the words, and the
 * title is the meta's, or none when Go's `encoding/json` refuses the meta (then Reasonix resumes it by its id).
 * rxstore's listing gives the title Reasonix goes by, and names the meta's problem where Reasonix does without it.
 */
const TIMES = '"created_at":"2025-01-02T03:04:05Z","updated_at":"2025-01-02T03:04:05Z"';

interface MetaCase {
  name: string;
  /** The meta's text, or a path it is a symbolic link to. */
  meta: string | { linkTo: string };
  /** Words of the title the meta would give: Reasonix finds the session by them, or not. */
  words: string;
  found: boolean;
  /** Whether Go refuses the meta (rxstore names it); by default, when the words are not found. */
  refused?: boolean;
  /** The title exactly, where it is found. */
  title?: string;
}

const cases: MetaCase[] = [
  {
    name: 'a null custom title, then the topic title',
    meta: `{${TIMES},"custom_title":null,"topic_title":"Topicz"}`,
    words: 'Topicz',
    found: true,
  },
  {
    name: 'a title written again as null keeps the first',
    meta: `{${TIMES},"custom_title":"Firstz","custom_title":null}`,
    words: 'Firstz',
    found: true,
  },
  {
    name: 'a key in another case names the field',
    meta: `{${TIMES},"Custom_Title":"Titlez"}`,
    words: 'Titlez',
    found: true,
  },
  { name: 'no times at all', meta: '{"custom_title":"Titlez"}', words: 'Titlez', found: true },
  {
    name: 'times written null',
    meta: '{"created_at":null,"updated_at":null,"custom_title":"Titlez"}',
    words: 'Titlez',
    found: true,
  },
  {
    name: 'a custom title of spaces only gives way to the topic title',
    meta: `{${TIMES},"custom_title":"  \\t","topic_title":"Topicz"}`,
    words: 'Topicz',
    found: true,
  },
  {
    name: 'a time that is not RFC 3339 refuses the meta',
    meta: '{"created_at":"yesterday","custom_title":"Titlez"}',
    words: 'Titlez',
    found: false,
  },
  {
    name: 'a time holding an escape refuses the meta: Go parses it as written',
    meta: '{"created_at":"2025-01-02T03:04:05\\u002e5Z","custom_title":"Titlez"}',
    words: 'Titlez',
    found: false,
  },
  {
    name: 'an in-flight turn’s start holding an escape refuses the meta',
    meta: `{${TIMES},"custom_title":"Titlez","in_flight_turn":{"started_at":"2025-01-02T03:04:05\\u005A"}}`,
    words: 'Titlez',
    found: false,
  },
  {
    name: 'an escape in a string that is no time is read',
    meta: `{${TIMES},"custom_title":"Title\\u007a","topic_id":"\\u0074"}`,
    words: 'Titlez',
    found: true,
  },
  {
    name: 'an integer written 1.0 refuses the meta',
    meta: `{${TIMES},"custom_title":"Titlez","turns":1.0}`,
    words: 'Titlez',
    found: false,
  },
  {
    name: 'a number for a string refuses the meta',
    meta: `{${TIMES},"custom_title":"Titlez","writer_id":5}`,
    words: 'Titlez',
    found: false,
  },
  {
    name: 'a wrong type in the in-flight turn refuses the meta',
    meta: `{${TIMES},"custom_title":"Titlez","in_flight_turn":{"preserve_user":"x"}}`,
    words: 'Titlez',
    found: false,
  },
  {
    name: 'a key no field has is ignored',
    meta: `{${TIMES},"custom_title":"Titlez","dismissed_todo_batches":[1]}`,
    words: 'Titlez',
    found: true,
  },
  {
    name: 'a key holding a dot is a key of its own, not a field inside another',
    meta: `{${TIMES},"custom_title":"Titlez","in_flight_turn.start_revision":1.5,"in_flight_turn":{"id":"x"}}`,
    words: 'Titlez',
    found: true,
  },
  {
    name: 'a byte-order mark before the meta is passed over',
    meta: `\ufeff{${TIMES},"custom_title":"Titlez"}`,
    words: 'Titlez',
    found: true,
  },
  {
    name: 'a title trimmed of Go’s white space',
    meta: `{${TIMES},"custom_title":"\u0085 Titlez\u3000"}`,
    words: 'Titlez',
    found: true,
    title: 'Titlez',
  },
  {
    name: 'a meta of white space and NUL bytes is none, not a refused one',
    meta: ' \n\u0000\t',
    words: 't1',
    found: true,
  },
  {
    name: 'a meta that is a link to /dev/null is an empty one',
    meta: { linkTo: '/dev/null' },
    words: 't1',
    found: true,
  },
];

async function reasonixFinds(stateRoot: string, workspace: string, words: string): Promise<boolean> {
  const mock = await startMockModel([{ text: 'Going on.' }]);
  try {
    const run = await runReasonix({
      home: stateRoot,
      cwd: workspace,
      args: ['run', '--resume', words, 'And now?'],
      mock,
    });
    if (run.code !== 0) expect(run.stderr).toContain(`no session matches "${words}"`);
    return run.code === 0;
  } finally {
    await mock.close();
  }
}

/** The one session of the transcript's store, as `ls` lists it. */
async function listed(transcript: string): Promise<ListedSession> {
  const sessions: ListedSession[] = [];
  const listing = await listSessions([{ kind: 'store', path: dirname(transcript) }], { platform: 'linux', threads: 0 });
  for await (const session of listing.sessions) sessions.push(session);
  expect(sessions).toHaveLength(1);
  return sessions[0]!;
}

describe.skipIf(!reasonixBinary())('a transcript’s .jsonl.meta is read as Reasonix reads it', () => {
  it.each(cases)(reasonixTitle('$name'), async ({ meta, words, found, refused = !found, title }) => {
    const base = await tempDir('rxstore-jsonl-meta-');
    const { stateRoot, workspace, transcript } = await transcriptIn(base, [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
    ]);
    if (typeof meta === 'string') await writeFile(`${transcript}.meta`, meta);
    else await symlink(meta.linkTo, `${transcript}.meta`);
    const session = await listed(transcript);
    expect(session.status).toBe('ok');
    // The id is no title's word: a session found by it has none.
    expect(session.title?.includes(words) ?? false).toBe(found && words !== 't1');
    if (title !== undefined) expect(session.title).toBe(title);
    expect(session.problem ?? '').toMatch(refused ? /^invalid t1\.jsonl\.meta: / : /^$/);
    expect(await reasonixFinds(stateRoot, workspace, words)).toBe(found);
  });

  it(
    reasonixTitle('a meta linked to /dev/null is left out of what a migration freezes, as Reasonix leaves it'),
    async () => {
      const base = await tempDir('rxstore-jsonl-meta-null-');
      const messages = [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
      ];
      const theirs = await transcriptIn(join(base, 'reasonix'), messages);
      await symlink('/dev/null', `${theirs.transcript}.meta`);
      expect(await reasonixFinds(theirs.stateRoot, theirs.workspace, 't1')).toBe(true);
      const [migrated] = listSessionDirs(theirs.stateRoot);
      const ours = await transcriptIn(join(base, 'rxstore'), messages);
      await symlink('/dev/null', `${ours.transcript}.meta`);
      const report = await migrateJsonlToV4(ours.transcript, { stateRoot: ours.stateRoot, cwd: ours.workspace });
      // The digest and size of what was frozen: the path each was migrated from is its own.
      const sourceOf = async (dir: string) => {
        const { source } = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as {
          source: { sha256: string; size: number };
        };
        return { sha256: source.sha256, size: source.size };
      };
      expect(await sourceOf(report.targetDir)).toEqual(await sourceOf(migrated!));
      expect(await readdir(join(report.targetDir, 'legacy'))).toEqual(await readdir(join(migrated!, 'legacy')));
    },
  );

  it(
    reasonixTitle('a salvaged transcript’s meta keeps every digit of its own: Reasonix finds it by its title'),
    async () => {
      const base = await tempDir('rxstore-jsonl-meta-salvage-');
      // The original outside any store, so that only the salvaged transcript holds the title.
      const elsewhere = await transcriptIn(join(base, 'elsewhere'), [{ role: 'user', content: 'hello' }]);
      await appendFile(elsewhere.transcript, '{"role":"assistant","content":"cut\n');
      await writeFile(`${elsewhere.transcript}.meta`, `{${TIMES},"custom_title":"Titlez","turns":9223372036854775807}`);
      const into = await transcriptIn(join(base, 'store'), [{ role: 'user', content: 'other' }]);
      await rm(into.transcript);
      const report = await salvageTranscript(elsewhere.transcript, { to: dirname(into.transcript) });
      expect(await readFile(`${report.newPath}.meta`, 'utf8')).toContain('"turns":9223372036854775807');
      expect(await reasonixFinds(into.stateRoot, into.workspace, 'Titlez')).toBe(true);
    },
  );
});
