// `npm run build`'s second step: what tsc emitted in dist/, bundled into dist/bundle/ — the files
// the package runs. A command or an `import` of the library then loads a few dozen files, not some
// 250 modules of rxstore, zod and yargs one by one: that load was a fifth of a warm
// `rxstore ls` of 2,000 sessions. The native addons and proper-lockfile (CommonJS) stay packages.
import { build } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** Bundles dist/ (the library, its codec entry, the CLI) into dist/bundle/, sharing chunks between them. */
export async function bundleDist(root: string = repoRoot): Promise<void> {
  await build({
    absWorkingDir: root,
    entryPoints: {
      index: 'dist/index.js',
      codec: 'dist/codec/index.js',
      cli: 'dist/cli/main.js',
      'v8-flags': 'dist/cli/v8-flags.js',
      'log-worker': 'dist/codec/log-worker/log-worker.js',
      'summary-worker': 'dist/store/listing/summary-pool/summary-worker.js',
      'index-reader-worker': 'dist/search/index-readers/index-reader-worker.js',
    },
    outdir: join(root, 'dist/bundle'),
    // Every chunk beside the entries: a module that finds package.json from where it lies finds it from there.
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    external: ['zstd-napi', 'fs-ext-extra-prebuilt', 'proper-lockfile', 'node-sqlite3-wasm'],
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleDist();
