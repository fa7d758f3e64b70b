import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { repoRoot } from '../support/paths.js';

/** Each ```console block of the README: `$ rxstore <args>` and what it prints. */
async function examples(): Promise<{ args: string[]; prints: string }[]> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  return [...readme.matchAll(/```console\n\$ rxstore (.*)\n([\s\S]*?)```/g)].map((match) => ({
    args: match[1]!.split(' '),
    prints: match[2]!,
  }));
}

describe("the README's command examples", () => {
  it('print what the README shows, run from the repository (shown as a checkout at /home/me/rxstore), in a pipe', async () => {
    const found = await examples();
    expect(found.map((example) => example.args[0])).toEqual(['ls', 'inspect', 'where', 'search']);
    for (const example of found) {
      const run = await runCliChild(example.args, { cwd: repoRoot, env: { ...process.env, TZ: 'UTC' } });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.replaceAll(repoRoot, '/home/me/rxstore/'), example.args.join(' ')).toBe(example.prints);
    }
  });
});
