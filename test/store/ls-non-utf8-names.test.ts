import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

describe('a workspace folder whose name is not UTF-8', () => {
  it('is said, with its bytes, and the sessions rxstore can read are listed beside it', async () => {
    const home = await tempDir('rxstore-non-utf8-');
    const plain = fixture('plain-chat');
    await cp(plain.root, home, { recursive: true });
    // Reasonix run in /tmp/bad<0xff>name keeps its sessions under that slug, byte for byte.
    const projects = Buffer.from(join(home, 'projects'));
    const slug = Buffer.concat([projects, Buffer.from('/-tmp-bad'), Buffer.from([0xff]), Buffer.from('name')]);
    await mkdir(Buffer.concat([slug, Buffer.from('/sessions-v4')]), { recursive: true });
    const listed = await runCliChild(['ls', '--json', '--no-cache', '--home', home]);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((row) => row.id)).toContain(plain.id);
    expect(listed.stderr).toBe(
      `rxstore: warning: ${join(home, 'projects')}/-tmp-bad\\xffname: a name that is not UTF-8: rxstore cannot read what is under it, and leaves it out\n`,
    );
  });
});
