// A workspace's folder of sessions (`projects/<slug>`) that is a symbolic link to a folder elsewhere, and a
// transcript (`<id>.jsonl`) that is a link to a file elsewhere: Reasonix 1.38.11 resumes both, so rxstore lists
// them and says so (they were left out, and `where` answered "no session matches").
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../../support/cli-child.js';
import { fixture } from '../../support/fixtures.js';
import { resumeCheck } from '../../support/reasonix/resume-check.js';
import { layForResume, reasonixBinary, reasonixTitle, simpleWorkspaceSlug } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

const source = fixture('plain-chat');

const resumes = async (home: string, id: string) => (await resumeCheck(home, source.workspace, id)).code === 0;

async function whereSays(home: string, id: string) {
  const where = await runCliChild(['where', id, '--json', '--state-home', home, '--cwd', source.workspace]);
  expect(where.code, where.stderr).toBe(0);
  return (JSON.parse(where.stdout) as { resume: { resumes: boolean; reason: string } }[])[0]!.resume;
}

describe.skipIf(!reasonixBinary())(reasonixTitle('store folders reached through symbolic links'), () => {
  it('a workspace folder of sessions that is a link: listed, and resumed as Reasonix resumes it', async () => {
    const home = await tempDir('rxstore-linked-slug-');
    const dir = await layForResume(source.dir, home, source.workspace);
    const slugFolder = join(home, 'projects', simpleWorkspaceSlug(source.workspace));
    const elsewhere = join(await tempDir('rxstore-linked-slug-elsewhere-'), 'slug');
    await rename(slugFolder, elsewhere);
    await symlink(elsewhere, slugFolder);
    expect(await whereSays(home, basename(dir))).toMatchObject({ resumes: true, reason: 'resumes' });
    expect(await resumes(home, basename(dir))).toBe(true);
  });

  it('a transcript that is a link to a file: listed, and resumed as Reasonix resumes it', async () => {
    const home = await tempDir('rxstore-linked-transcript-');
    const sessions = join(home, 'projects', simpleWorkspaceSlug(source.workspace), 'sessions');
    await mkdir(sessions, { recursive: true });
    await mkdir(source.workspace, { recursive: true });
    const file = join(await tempDir('rxstore-linked-transcript-elsewhere-'), 't.jsonl');
    const lines = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: 'hi!' },
    ];
    await writeFile(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    await symlink(file, join(sessions, 't.jsonl'));
    expect(await whereSays(home, 't')).toMatchObject({ resumes: true });
    expect(await resumes(home, 't')).toBe(true);
  });
});
