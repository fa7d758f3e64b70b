import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inputsDir, repoRoot } from './paths.js';

/** Files whose content shapes generated inputs: when one changes, every cached input is rebuilt. */
const GENERATOR_FILES = [
  'bench/support/text.ts',
  'bench/support/turn-plan.ts',
  'bench/support/write-session.ts',
  'bench/support/transcripts.ts',
  'bench/support/state-root.ts',
  'src/codec/encode-batch.ts',
];

const STAMP = '.bench-input.json';

let generatorDigest: string | undefined;
async function generator(): Promise<string> {
  if (generatorDigest === undefined) {
    const hash = createHash('sha256');
    for (const file of GENERATOR_FILES) hash.update(await readFile(join(repoRoot, file)));
    generatorDigest = hash.digest('hex').slice(0, 16);
  }
  return generatorDigest;
}

/**
 * A generated input under `.bench/inputs/<name>`, built once and reused while its parameters (and
 * the generator's source) stay the same. The stamp is written last, so an interrupted build is
 * never mistaken for a finished one.
 */
export async function cachedInput<T>(
  name: string,
  params: object,
  build: (dir: string) => Promise<T>,
): Promise<{ dir: string; value: T }> {
  const dir = join(inputsDir, name);
  const key = JSON.stringify({ params, generator: await generator() });
  const stamp = await readFile(join(dir, STAMP), 'utf8').catch(() => undefined);
  if (stamp !== undefined) {
    const saved = JSON.parse(stamp) as { key: string; value: T };
    if (saved.key === key) return { dir, value: saved.value };
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const started = performance.now();
  process.stderr.write(`  generating ${name} …`);
  const value = await build(dir);
  process.stderr.write(` ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  await writeFile(join(dir, STAMP), JSON.stringify({ key, value }));
  return { dir, value };
}
