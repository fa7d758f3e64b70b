// The command line and the page renderer are clients of the library: a file under src/cli or
// src/view imports library code only from the main entry (src/index.ts), besides files of its own
// folder; src/cli reaches the renderer only through its entry (src/view/index.ts). A deep import
// fails this test: what the CLI needs becomes library API instead.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

/**
 * Deep imports not yet moved behind the main entry, each `<file>: <specifier>`. The list only
 * shrinks: a new deep import fails the test, and so does one that is gone but still listed.
 */
const NOT_YET_THROUGH_THE_ENTRY: string[] = [
  'cli/commands/ls.ts: ../../store/roots/store-kind.js',
  'cli/error-line.ts: ../errors/index.js',
  'cli/exit-code-of-status.ts: ../session/reading/read-session.js',
  'cli/format-inspect.ts: ../errors/index.js',
  'cli/main.ts: ../errors/index.js',
  'cli/run/export.ts: ../../migrate/export-session.js',
  'cli/run/inspect.ts: ../../session/replay/views.js',
  'cli/run/ls.ts: ../../errors/index.js',
  'cli/run/ls.ts: ../../store/listing/find-session.js',
  'cli/run/migrate.ts: ../../migrate/resume-command.js',
  'cli/run/migrate.ts: ../../store/resume/shell-command.js',
  'cli/run/salvage.ts: ../../migrate/salvage-transcript.js',
  'cli/run/salvage.ts: ../../store/resume/shell-command.js',
  'cli/run/view.ts: ../../errors/index.js',
  'cli/run/view.ts: ../../fs/atomic-stream.js',
  'cli/run/view.ts: ../../fs/atomic-write.js',
  'cli/run/view.ts: ../../fs/path-kind.js',
  'cli/run/view.ts: ../../store/jsonl/jsonl-sidecars.js',
  'cli/run/view.ts: ../../store/locate-session.js',
  'cli/run/where.ts: ../../store/resume/shell-command.js',
  'cli/session-argument.ts: ../errors/index.js',
  'cli/session-argument.ts: ../store/listing/find-session.js',
  'cli/v8-flags.ts: ../codec/log-worker/reading-v8-flags.js',
  'view/page-target.ts: ../errors/index.js',
  'view/page-target.ts: ../fs/path-kind.js',
  'view/session-view.ts: ../errors/index.js',
  'view/session-view.ts: ../session/replay/message.js',
  'view/session-view.ts: ../session/replay/payloads.js',
  'view/session-view.ts: ../session/replay/views.js',
  'view/session-view.ts: ../store/resume/shell-command.js',
  'view/session-view.ts: ../store/roots/platform.js',
  'view/tool-call-view.ts: ../session/replay/message.js',
  'view/write-site.ts: ../errors/index.js',
  'view/write-site.ts: ../fs/atomic-stream.js',
  'view/write-site.ts: ../fs/atomic-write.js',
  'view/write-site.ts: ../fs/path-kind.js',
  'view/write-site.ts: ../fs/store-lock.js',
  'view/write-site.ts: ../session/reading/read-json-file.js',
  'view/write-site.ts: ../session/reading/session-files.js',
];

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
    expect(deep).toEqual([...NOT_YET_THROUGH_THE_ENTRY].sort());
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
