import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { runNodeChild } from '../support/cli-child.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';

const run = promisify(execFile);
const packageJson = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  license: string;
  version: string;
};
const name = packageJson.name;

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const nodeHasZstd = major > 22 || (major === 22 && minor >= 15);

const session = join(
  repoRoot,
  'fixtures/jsonl-migrated/projects/-tmp-rxstore-fixture-ws-jsonl-migrated/sessions-v4/132c0de01906f443be5549e5',
);
const readsTheFixture = '132c0de01906f443be5549e5 ok 8 batches';
const noZstdLine =
  /^RX_ZSTD_UNAVAILABLE no zstd: Node [\d.]+ has none built in and the optional zstd-napi addon did not load; use Node 22\.15 or later, or run `npm install zstd-napi`/;

// The same few lines from ESM and from CommonJS: open the fixture, read it, or print the error's code and message.
const esm = `import { openSession } from '${name}';
try {
  const session = await openSession(process.argv[2]);
  const read = await session.read();
  console.log(session.id, read.status, read.batches, 'batches');
} catch (error) {
  console.log(error.code, error.message);
}
`;
const cjs = `const { openSession } = require('${name}');
openSession(process.argv[2])
  .then(async (session) => {
    const read = await session.read();
    console.log(session.id, read.status, read.batches, 'batches');
  })
  .catch((error) => console.log(error.code, error.message));
`;
const typed = (importLine: string) => `${importLine}
export async function firstUserLine(path: string): Promise<string | undefined> {
  const session: OpenedSession = await openSession(path);
  const read: SessionRead = await session.read();
  if (read.status === 'damaged') return undefined;
  for await (const message of session.personView()) if (message.role === 'user') return message.content.split('\\n')[0];
  return undefined;
}
export function codeOf(error: unknown): string | undefined {
  return error instanceof RxError ? error.code : undefined;
}
`;

// The codec entry on its own: the fixture's log as verified batches, with no session layer loaded.
const codec = `import { createReadStream } from 'node:fs';
import { readBatches, readFrames } from '${name}/codec';
let batches = 0;
for await (const item of readBatches(readFrames(createReadStream(process.argv[2] + '/events.frames')))) if (item.type === 'batch') batches += 1;
console.log(batches, 'batches');
`;

let packed: { files: { path: string }[]; filename: string };
let project: string;

beforeAll(async () => {
  const dir = await tempDir('rxstore-package-');
  // The dist/ the test setup built; packing must not rebuild it under running tests.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: repoRoot,
  });
  packed = (JSON.parse(stdout) as (typeof packed)[])[0]!;
  project = join(dir, 'consumer');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  // As pnpm 10 installs by default: no install scripts, so the zstd-napi addon is never built.
  await run(
    'npm',
    ['install', join(dir, packed.filename), '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
    { cwd: project },
  );
  await writeFile(join(project, 'read.mjs'), esm);
  await writeFile(join(project, 'read.cjs'), cjs);
  await writeFile(join(project, 'codec.mjs'), codec);
  await writeFile(
    join(project, 'consumer.mts'),
    typed(`import { openSession, RxError, type OpenedSession, type SessionRead } from '${name}';`),
  );
  await writeFile(
    join(project, 'consumer.cts'),
    typed(`import { openSession, RxError, type OpenedSession, type SessionRead } from '${name}';`),
  );
}, 300_000);

describe(`the packed ${name} tarball`, () => {
  it('holds the built library and CLI, the LICENSE its license field names, README with every file it links to and the sample sessions its examples read, and no source maps', async () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'docs/format.md',
        'docs/error-codes.md',
        'docs/commands.md',
        'docs/library.md',
        'package.json',
        'bin/rxstore.js',
        'dist/bundle/index.js',
        'dist/bundle/codec.js',
        'dist/bundle/cli.js',
        'dist/index.d.ts',
      ]),
    );
    expect(paths.filter((path) => path.endsWith('.map'))).toEqual([]);
    // What runs is the bundle; tsc's per-module output ships only as types.
    expect(
      paths.filter((path) => path.endsWith('.js') && path.startsWith('dist/') && !path.startsWith('dist/bundle/')),
    ).toEqual([]);
    expect(
      paths.filter(
        (path) => !/^(dist|bin|docs|fixtures)\/|^(LICENSE|README\.md|ARCHITECTURE\.md|package\.json)$/.test(path),
      ),
    ).toEqual([]);
    // Every file README links to, and the sessions its examples read, are in the package, but for what is kept
    // for the repository's readers alone: journals, pictures and the contributors' notes, which no user needs.
    const repositoryOnly = [
      'docs/performance.md',
      'docs/view-screenshot.png',
      'docs/mutation-left.md',
      'CONTRIBUTING.md',
    ];
    for (const path of repositoryOnly) expect(paths, path).not.toContain(path);
    const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\(((?:docs|fixtures)\/[^)#\s]+|ARCHITECTURE\.md)[)#]/g)].map((match) =>
      match[1]!.replace(/\/$/, ''),
    );
    expect(linked.filter((path) => !repositoryOnly.includes(path)).length).toBeGreaterThan(2);
    for (const path of linked.filter((path) => !repositoryOnly.includes(path)))
      expect(
        paths.some((file) => file === path || file.startsWith(`${path}/`)),
        path,
      ).toBe(true);
    for (const example of ['tool-calls', 'titled', 'jsonl-migrated'])
      expect(
        paths.some((file) => file.startsWith(`fixtures/${example}/projects/`)),
        example,
      ).toBe(true);
    expect(packageJson.license).toBe('MIT');
    expect(await readFile(join(repoRoot, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    const shipped = await readFile(join(project, 'node_modules', name, 'dist/bundle/index.js'), 'utf8');
    expect(shipped).not.toMatch(/sourceMappingURL/);
  });

  it('runs no script of its own when installed: its manifest has no install step (npm 11 asks to approve one)', async () => {
    const installed = JSON.parse(await readFile(join(project, 'node_modules', name, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare'];
    expect(Object.keys(installed.scripts ?? {}).filter((script) => lifecycle.includes(script))).toEqual([]);
  });

  it('installs without install scripts and reads a session from ESM and from CommonJS', async () => {
    for (const script of ['read.mjs', 'read.cjs']) {
      const result = await runNodeChild([join(project, script), session], { cwd: project });
      expect(result.stderr, script).toBe('');
      if (nodeHasZstd) expect(result.stdout.trimEnd(), script).toBe(readsTheFixture);
      else {
        expect(result.stdout.trimEnd().split('\n'), script).toHaveLength(1);
        expect(result.stdout, script).toMatch(noZstdLine);
      }
    }
    if (!nodeHasZstd) {
      // With the addon built (what an install with scripts does), the same Node reads it.
      await cp(join(repoRoot, 'node_modules/zstd-napi/build'), join(project, 'node_modules/zstd-napi/build'), {
        recursive: true,
      });
      try {
        for (const script of ['read.mjs', 'read.cjs']) {
          const result = await runNodeChild([join(project, script), session], { cwd: project });
          expect(result.stdout.trimEnd(), script).toBe(readsTheFixture);
        }
      } finally {
        await rm(join(project, 'node_modules/zstd-napi/build'), { recursive: true, force: true });
      }
    }
  });

  it("never loads the command line's parser from the library: yargs is in the files the CLI loads, in none the library's entry does", async () => {
    const installed = join(project, 'node_modules', name);
    // yargs' own error class, which no rxstore module names.
    const yargsCode = 'this.name = "YError"';
    const has = async (files: string[]) =>
      (
        await Promise.all(
          files.map(async (file) => (await readFile(join(installed, file), 'utf8')).includes(yargsCode)),
        )
      ).some(Boolean);
    expect(await has(await loadedFrom(installed, 'dist/bundle/cli.js'))).toBe(true);
    expect(await has(await loadedFrom(installed, 'dist/bundle/index.js'))).toBe(false);
  });

  it('keeps the low-level codec behind its own entry, and the main entry small', async () => {
    // Every error class is exported (a caller narrows on them); the other runtime names are capped.
    const count = `const errors = Object.values(library).filter((value) => value === library.RxError || value?.prototype instanceof library.RxError).length;`;
    const main = await runNodeChild(
      [
        '--input-type=module',
        '-e',
        `import * as library from '${name}'; ${count} console.log(Object.keys(library).length - errors, 'readFrames' in library)`,
      ],
      { cwd: project },
    );
    const [others, hasCodec] = main.stdout.trim().split(' ');
    // 46 since `sessionWorkspace` (a relocated session's folder, as `inspect` and `view` name it).
    expect(Number(others)).toBeLessThanOrEqual(46);
    expect(hasCodec).toBe('false');
    // Without built-in zstd, the addon as an install with scripts builds it.
    const addon = join(project, 'node_modules/zstd-napi/build');
    if (!nodeHasZstd) await cp(join(repoRoot, 'node_modules/zstd-napi/build'), addon, { recursive: true });
    try {
      const result = await runNodeChild([join(project, 'codec.mjs'), session], { cwd: project });
      expect(result.stderr).toBe('');
      expect(result.stdout.trim()).toBe('8 batches');
    } finally {
      if (!nodeHasZstd) await rm(addon, { recursive: true, force: true });
    }
  });

  it(
    nodeHasZstd
      ? 'gives the rxstore command, which inspects a session with no addon built'
      : 'gives the rxstore command, which says in one line what to install when this Node has no zstd',
    async () => {
      const result = await runNodeChild([join(project, 'node_modules/.bin/rxstore'), 'inspect', session], {
        cwd: project,
      });
      if (nodeHasZstd) {
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(result.stdout).toMatch(/^session +132c0de01906f443be5549e5$/m);
        expect(result.stdout).toMatch(/^status +ok$/m);
      } else {
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(/^rxstore: RX_ZSTD_UNAVAILABLE: no zstd: .*\n$/);
        expect(result.stderr.split('\n')).toHaveLength(2);
        // Salvage reads past damage, never past a missing zstd: the error is the machine's, not the session's.
        const salvaged = await runNodeChild(
          [join(project, 'node_modules/.bin/rxstore'), 'salvage', session, '--dry-run', '--json'],
          { cwd: project },
        );
        expect(salvaged.code).toBe(1);
        expect(salvaged.stdout).toBe('');
        expect(salvaged.stderr).toMatch(/^rxstore: RX_ZSTD_UNAVAILABLE: no zstd: .*\n$/);
      }
    },
  );

  const compilers = [
    ['TypeScript 5', join(repoRoot, 'node_modules/typescript/bin/tsc')],
    ['TypeScript 7', join(repoRoot, 'test/typescript-7/node_modules/typescript/bin/tsc')],
  ] as const;
  it.each(compilers)(
    'has types a consumer compiles with %s against the current @types/node, skipLibCheck off, from ESM and CommonJS',
    async (_, tsc) => {
      // The project builds against the oldest Node it supports; a consumer has today's @types/node (pinned here as @types/node-current).
      const typesNode = join(project, 'node_modules/@types/node');
      await rm(typesNode, { recursive: true, force: true });
      await cp(join(repoRoot, 'node_modules/@types/node-current'), typesNode, { recursive: true, dereference: true });
      const { version } = JSON.parse(await readFile(join(typesNode, 'package.json'), 'utf8')) as { version: string };
      expect(Number(version.split('.')[0])).toBeGreaterThanOrEqual(26);
      const config = {
        compilerOptions: {
          target: 'ES2023',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['consumer.mts', 'consumer.cts'],
      };
      await writeFile(join(project, 'tsconfig.json'), JSON.stringify(config, null, 2));
      const result = await runNodeChild([tsc, '-p', join(project, 'tsconfig.json')], { cwd: project });
      expect(result.stdout + result.stderr).toBe('');
      expect(result.code).toBe(0);
    },
  );
});

/** Every bundle file `entry` loads, itself included: what it imports, statically or when asked, and so on. */
async function loadedFrom(root: string, entry: string): Promise<string[]> {
  const seen = new Set<string>();
  const visit = async (file: string): Promise<void> => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = await readFile(join(root, file), 'utf8');
    for (const [, relative] of text.matchAll(/(?:from|import\(?)\s*"(\.\/[^"]+\.js)"/g))
      await visit(join(dirname(file), relative!));
  };
  await visit(entry);
  return [...seen];
}
