// `reasonix serve` on a loopback port, for the writer paths only it has (fork with a title, rewind).
// Started with `--auth none --no-open`; the bound address comes from `--port-file` (addr 127.0.0.1:0).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, watch } from 'node:fs';
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
}

export interface ReasonixServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** JSON request to the server; resolves with the status and the parsed (or raw) body. */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: unknown }>;
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
  const child = spawn(bin, args, {
    cwd: options.cwd,
    env: reasonixEnv(options.home),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );

  // Started when it has written its address; failed when it exits first. Events, no deadline: a slow start
  // on a busy machine is slower, never a failure.
  const started = await new Promise<boolean>((resolve) => {
    const watcher = watch(portDir);
    const settle = (ok: boolean) => {
      watcher.close();
      child.off('exit', exitedFirst);
      resolve(ok);
    };
    const check = () => {
      if (existsSync(portFile) && readFileSync(portFile, 'utf8').trim()) settle(true);
    };
    const exitedFirst = () => settle(false);
    watcher.on('change', check);
    child.once('exit', exitedFirst);
    check();
  });
  if (!started) {
    await rm(portDir, { recursive: true, force: true });
    throw new Error(`reasonix serve did not start: ${stderr || stdout}`);
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
      return { code, signal, timedOut: false, waitedOnFifo: false, readWithoutEnd: false, stdout, stderr };
    },
  };
}
