import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { repoRoot } from '../paths.js';

/**
 * Holds a lock in another process (`hold-lock.mjs`) until `release` is called: `os`, the OS lock Reasonix
 * takes on a file (flock on Unix); `store`, rxstore's own lock on a store folder. Resolves once it is held.
 */
export async function holdLock(kind: 'os' | 'store', target: string): Promise<{ release: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'test', 'support', 'children', 'hold-lock.mjs'), kind, target],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
    child.on('close', (code) => reject(new Error(`the lock holder exited (${code}) before it held the lock`)));
  });
  return {
    release: async () => {
      child.stdin.end();
      expect(await exited).toBe(0);
    },
  };
}
