// `reasonix serve` on a loopback port, for the writer paths only it has (fork with a title, rewind).
// Started with `--auth none --no-open`; the bound address comes from `--port-file` (addr 127.0.0.1:0).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockModel } from './mock-model.js';
import { reasonixAbsentMessage, reasonixBinary, reasonixEnv, writeReasonixConfig, type RunResult } from './reasonix.js';

export interface ServeOptions {
  /** Scratch folder used as HOME and REASONIX_HOME. */
  home: string;
  /** Workspace whose store serve uses. */
  cwd: string;
  mock: MockModel;
  /** How long to wait for the port file. Default 20 s. */
  startTimeoutMs?: number;
}

export interface ReasonixServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** JSON request to the server; resolves with the status and the parsed (or raw) body. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: unknown }>;
  /** SIGINT (serve shuts down gracefully) and wait for the exit. */
  stop(): Promise<RunResult>;
}

export async function startReasonixServe(options: ServeOptions): Promise<ReasonixServer> {
  const bin = reasonixBinary();
  if (!bin) throw new Error(reasonixAbsentMessage());
  await writeReasonixConfig(options.home, options.mock.baseUrl);
  const portDir = await mkdtemp(join(tmpdir(), 'rxstore-serve-'));
  const portFile = join(portDir, 'addr');
  const args = ['serve', '--addr', '127.0.0.1:0', '--auth', 'none', '--no-open', '--port-file', portFile];
  const child = spawn(bin, args, { cwd: options.cwd, env: reasonixEnv(options.home), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));

  const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
  while (!(existsSync(portFile) && readFileSync(portFile, 'utf8').trim())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      await rm(portDir, { recursive: true, force: true });
      throw new Error(`reasonix serve did not start: ${stderr || stdout}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = `http://${readFileSync(portFile, 'utf8').trim()}`;
  await rm(portDir, { recursive: true, force: true });
  if (!url.startsWith('http://127.0.0.1:')) {
    child.kill('SIGKILL');
    throw new Error(`reasonix serve bound ${url}, expected 127.0.0.1`);
  }

  return {
    url,
    async request(method, path, body, headers = {}) {
      const response = await fetch(url + path, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // plain-text answers (errors, 204) stay as text
      }
      return { status: response.status, body: parsed };
    },
    async stop() {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const [code, signal] = await exited;
      clearTimeout(timer);
      return { code, signal, timedOut: false, stdout, stderr };
    },
  };
}
