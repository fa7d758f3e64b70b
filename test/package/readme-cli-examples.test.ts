import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { repoRoot } from '../support/paths.js';

/** Each ```console block of the README: `$ rxstore <args>` (split into words as the shell splits them) and what it prints. */
async function examples(): Promise<{ args: string[]; prints: string }[]> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  return [...readme.matchAll(/```console\n\$ rxstore (.*)\n([\s\S]*?)```/g)].map((match) => ({
    args: execFileSync('bash', ['-c', `for word in ${match[1]!}; do printf '%s\\0' "$word"; done`], {
      encoding: 'utf8',
    })
      .split('\0')
      .slice(0, -1),
    prints: match[2]!,
  }));
}

/** The README's setup line before its examples (the folders the fixtures were written in), run as a person runs it. */
async function setUp(): Promise<void> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const line = /```sh\n(mkdir -p \/tmp\/rxstore-fixture-ws\/.*)\n```/.exec(readme)?.[1];
  expect(line, "the README makes the fixtures' workspace folders").toBeDefined();
  execFileSync('bash', ['-c', line!]);
}

describe("the README's command examples", () => {
  it('print what the README shows, run from the repository (shown as a checkout at /home/me/rxstore), in a pipe', async () => {
    await setUp();
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
