import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNodeChild } from '../support/cli-child.js';
import { repoRoot } from '../support/paths.js';

/** Each ```js block of the README's library section and of docs/library.md, with the ```text block it says it prints. */
async function examples(): Promise<{ code: string; prints: string }[]> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Use it as a library'),
    readme.indexOf('\n## ', readme.indexOf('## Use it as a library') + 1),
  );
  const library = await readFile(join(repoRoot, 'docs', 'library.md'), 'utf8');
  return [section, library].flatMap((text) =>
    [...text.matchAll(/```js\n([\s\S]*?)```\s*prints\s*```text\n([\s\S]*?)```/g)].map((match) => ({
      code: match[1]!,
      prints: match[2]!.trimEnd(),
    })),
  );
}

describe('the library examples of README and docs/library.md', () => {
  it('run, importing rxstore by its package name, and print what the README says', async () => {
    const found = await examples();
    expect(found.length).toBeGreaterThanOrEqual(6);
    // Inside the package, so `import 'reasonix-sessions'` resolves to the package itself (built by the test setup).
    const dir = join(repoRoot, '.readme-examples');
    await mkdir(dir, { recursive: true });
    for (const [index, example] of found.entries()) {
      const file = join(dir, `example-${index + 1}.mjs`);
      await writeFile(file, example.code);
      const run = await runNodeChild([file], { cwd: repoRoot });
      expect(run.stderr).toBe('');
      expect(run.stdout.trimEnd(), `example ${index + 1}`).toBe(example.prints);
    }
  });
});

describe('the library entry', () => {
  it('holds as many names as the README says', async () => {
    const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
    const said = /The main entry holds what a library user needs, (\d+) names/.exec(readme)?.[1];
    expect(said).toBeDefined();
    expect(Object.keys(await import('../../src/index.js')).length).toBe(Number(said));
  });

  it('never reaches the CLI or yargs', async () => {
    const seen = new Set<string>();
    const visit = async (file: string): Promise<void> => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = await readFile(file, 'utf8');
      for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        expect(specifier, `${file} imports ${specifier}`).not.toMatch(/^yargs/);
        if (specifier!.startsWith('.')) await visit(resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')));
      }
    };
    await visit(join(repoRoot, 'src', 'index.ts'));
    expect([...seen].filter((file) => file.includes(`${join('src', 'cli')}`))).toEqual([]);
    expect(seen.size).toBeGreaterThan(40);
  });
});
