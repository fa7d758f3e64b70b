// The command line and the page renderer are clients of the library: a file under src/cli or
// src/view imports library code only from the main entry (src/index.ts), besides files of its own
// folder; src/cli reaches the renderer only through its entry (src/view/index.ts). A deep import
// fails this test: what the CLI needs becomes library API instead.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every module specifier a file names: static imports and re-exports, `import type`, and dynamic `import()`. */
function specifiersOf(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'([^']+)'/g)].map((match) => match[1]!);
}

/** The deep imports of the files under `folder`: library modules named other than through the entries it may use. */
async function deepImports(folder: 'cli' | 'view'): Promise<string[]> {
  const src = join(repoRoot, 'src');
  const own = join(src, folder);
  const entries = new Set([join(src, 'index.ts'), ...(folder === 'cli' ? [join(src, 'view', 'index.ts')] : [])]);
  const found: string[] = [];
  for (const file of await sourceFiles(own)) {
    for (const specifier of specifiersOf(await readFile(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      const inOwnFolder = !relative(own, target).startsWith('..');
      if (inOwnFolder || entries.has(target)) continue;
      found.push(`${relative(src, file).split('\\').join('/')}: ${specifier}`);
    }
  }
  return found;
}

describe('the command line and the page renderer are clients of the library', () => {
  it('import library code only from the main entry, and the CLI the renderer only through its entry', async () => {
    const deep = [...(await deepImports('cli')), ...(await deepImports('view'))].sort();
    expect(deep).toEqual([]);
  });

  it('sees a deep import when there is one (the scan is not blind)', () => {
    expect(
      specifiersOf(
        `import { a } from '../../../fs/x.js';\nimport type { B } from "y";\nexport { c } from './c.js';\nconst m = await import('../../view/v.js');`,
      ),
    ).toEqual(['../../../fs/x.js', './c.js', '../../view/v.js']);
  });

  it('the renderer never imports the command line', async () => {
    const view = join(repoRoot, 'src', 'view');
    for (const file of await sourceFiles(view)) {
      for (const specifier of specifiersOf(await readFile(file, 'utf8')))
        expect(resolve(dirname(file), specifier), file).not.toContain(join('src', 'cli'));
    }
  });
});
