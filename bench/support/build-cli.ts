import { runChild } from './child.js';
import { bundleDist } from '../../scripts/bundle.js';
import { repoRoot } from './paths.js';

/**
 * Builds `dist/` so the CLI rows time the current sources. Other work in progress may not type
 * check; tsc still emits, so the bench goes on and reports the failure rather than hiding it.
 */
export async function buildCli(): Promise<{ ok: boolean; message: string }> {
  const result = await runChild(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: repoRoot,
    keepStdout: true,
  });
  const output = `${result.stdout}${result.stderr}`.trim();
  // What the package runs: the bundle of what tsc emitted (npm run build does the same two steps).
  await bundleDist(repoRoot);
  return {
    ok: result.code === 0,
    message: result.code === 0 ? 'built' : `tsc -p tsconfig.build.json exited ${result.code}:\n${output}`,
  };
}
