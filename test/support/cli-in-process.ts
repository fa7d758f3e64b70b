import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChildResult } from './cli-child.js';
import { repoRoot } from './paths.js';

type Main = (argv: string[], output: { out(text: string): void; err(text: string): void }) => Promise<number>;

/**
 * Runs the built CLI's `main` in this process, as `bin/rxstore.js` runs it, its output to a pipe (no terminal):
 * what a run of the binary prints and the exit code it ends with, for the cost of a call. For words that the
 * command line alone answers (usage errors): a command that reads or writes sessions runs as a child
 * (`runCliChild`), as a user runs it.
 */
export async function runCliInProcess(args: string[]): Promise<ChildResult> {
  const { main } = (await import(pathToFileURL(join(repoRoot, 'dist', 'bundle', 'cli.js')).href)) as { main: Main };
  let [stdout, stderr] = ['', ''];
  const code = await main(args, { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, signal: null, stdout, stderr };
}
