// The PATH the real Reasonix runs with in tests: a folder of links to the few tools its runs use. On its
// first turn Reasonix asks every toolchain on PATH its version (node, npm, git, make, docker, python,
// rustc, cargo; a version manager's shims run several scripts each) for the model's system prompt: two
// thirds of a short run's time, and nothing a verdict depends on.
import { chmodSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** A shell and what the mock model's calls and the tests' own runs use (`setpriv` runs Reasonix as another user). */
const TOOLS = [
  'sh',
  'bash',
  'env',
  'setpriv',
  'ls',
  'cat',
  'echo',
  'printf',
  'true',
  'false',
  'pwd',
  'sleep',
  'grep',
  'sed',
  'head',
  'tail',
  'wc',
  'sort',
  'mkdir',
  'rm',
  'cp',
  'mv',
  'touch',
  'test',
];

let made: string | undefined;

/** The folder of links, made once for this process from the tools found on its own PATH. */
export function reasonixToolsPath(): string {
  if (made !== undefined) return made;
  const dir = mkdtempSync(join(tmpdir(), 'rxstore-reasonix-path-'));
  // Reasonix may run as another user (`asUser`): the folder must let it look in.
  chmodSync(dir, 0o755);
  const searched = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const tool of TOOLS) {
    const found = searched.map((folder) => join(folder, tool)).find((path) => existsSync(path));
    if (found) symlinkSync(found, join(dir, tool));
  }
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  made = dir;
  return dir;
}
