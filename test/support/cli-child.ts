import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

export const rxstoreBin = join(repoRoot, 'bin', 'rxstore.js');

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs node with `argv` in its own process, optionally killing it with SIGKILL after a delay. */
export function runNodeChild(
  argv: string[],
  options: { killAfterMs?: number; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ChildResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: options.cwd,
      env: options.env ?? process.env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer =
      options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs the built CLI as a user would, in its own process. */
export function runCliChild(
  args: string[],
  options: { killAfterMs?: number; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ChildResult> {
  return runNodeChild([rxstoreBin, ...args], options);
}
