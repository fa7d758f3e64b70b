import { spawn } from 'node:child_process';

export interface ChildOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Keep stdout (default: discarded, as `> /dev/null` would). */
  keepStdout?: boolean;
}

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; stdout goes to /dev/null unless kept, so printing costs nothing extra. */
export function runChild(command: string, args: readonly string[], options: ChildOptions = {}): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', options.keepStdout ? 'pipe' : 'ignore', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** As `runChild`, but a non-zero exit is an error naming the command and its last words. */
export async function runChildOk(
  command: string,
  args: readonly string[],
  options: ChildOptions = {},
): Promise<ChildResult> {
  const result = await runChild(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${[command, ...args].join(' ')} exited ${result.code}: ${result.stderr.trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
  return result;
}
