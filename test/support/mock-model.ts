// A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for driving the real
// Reasonix offline (shared/spec/driving-reasonix-offline.md, "The model endpoint").
// Replies are consumed in order; every request body is recorded, because the `messages`
// Reasonix sends on a resumed turn are its own view of the stored session.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockToolCall {
  /** Reasonix tool name, e.g. `bash`, `read_file`, `write_file`, `edit_file`. */
  name: string;
  /** Tool arguments; an object is sent as its JSON text. */
  arguments: Record<string, unknown>;
  /** Call id; defaults to `call_<n>` numbered across the server's lifetime. */
  id?: string;
}

export interface MockReply {
  /** Assistant text. */
  text?: string;
  /** Tool calls of this assistant turn (several = parallel calls). */
  toolCalls?: MockToolCall[];
  /** Wait this long after the response headers before sending the reply, so a turn stays in progress. */
  holdMs?: number;
  /** After `holdMs`, destroy the connection instead of answering (a provider failure mid-stream). */
  dropConnection?: boolean;
}

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; type?: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface ChatRequest {
  model?: string;
  stream?: boolean;
  messages: ChatMessage[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Parsed JSON body; undefined when the request had none. */
  body: ChatRequest | undefined;
  /** The script entry answered, or undefined when the script was exhausted or it was not a chat request. */
  reply: MockReply | undefined;
}

export interface MockModel {
  /** `http://127.0.0.1:<port>/v1`, the provider `base_url`. */
  baseUrl: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** Chat-completion requests only, in arrival order. */
  chatRequests(): ChatRequest[];
  /** Resolves once `count` chat-completion requests have arrived. */
  waitForChatRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Answer given when the script is exhausted (compaction summaries, extra rounds), so Reasonix never hangs. */
export const FALLBACK_TEXT = 'Done.';

const MODEL_ID = 'mock-model';

export async function startMockModel(script: MockReply[]): Promise<MockModel> {
  const pending = [...script];
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let callCounter = 0;

  const chatRequests = (): ChatRequest[] =>
    requests.filter((r) => r.path.endsWith('/chat/completions') && r.body).map((r) => r.body as ChatRequest);

  const notifyWaiters = (): void => {
    const seen = chatRequests().length;
    for (const w of waiters.filter((w) => w.count <= seen)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const body = raw.length > 0 ? (JSON.parse(raw) as ChatRequest) : undefined;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const isChat = req.method === 'POST' && path.endsWith('/chat/completions');
    const reply = isChat ? pending.shift() : undefined;
    requests.push({ method: req.method ?? 'GET', path, body, reply });
    if (isChat) notifyWaiters();

    if (req.method === 'GET' && path.endsWith('/models')) {
      sendJson(res, { object: 'list', data: [{ id: MODEL_ID, object: 'model', created: 0, owned_by: 'mock' }] });
      return;
    }
    if (!isChat || !body) {
      sendJson(res, { error: { message: `mock model: no route for ${req.method} ${path}` } }, 404);
      return;
    }
    const answer = reply ?? { text: FALLBACK_TEXT };
    const calls = (answer.toolCalls ?? []).map((c) => ({
      id: c.id ?? `call_${++callCounter}`,
      name: c.name,
      arguments: JSON.stringify(c.arguments),
    }));
    if (body.stream === false) {
      await sleep(answer.holdMs);
      if (answer.dropConnection) return void res.destroy();
      sendJson(res, completion(answer.text, calls));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    await sleep(answer.holdMs);
    if (answer.dropConnection) return void res.destroy();
    for (const chunk of streamChunks(answer.text, calls)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end('data: [DONE]\n\n');
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests,
    waitForChatRequests(count) {
      return new Promise((resolve) => {
        waiters.push({ count, resolve });
        notifyWaiters();
      });
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

interface WireCall {
  id: string;
  name: string;
  arguments: string;
}

const USAGE = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };

function envelope(object: string): { id: string; object: string; created: number; model: string } {
  return { id: 'chatcmpl-mock', object, created: Math.floor(Date.now() / 1000), model: MODEL_ID };
}

function completion(text: string | undefined, calls: WireCall[]): object {
  const message: Record<string, unknown> = { role: 'assistant', content: text ?? (calls.length ? null : '') };
  if (calls.length) {
    message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  return {
    ...envelope('chat.completion'),
    choices: [{ index: 0, message, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
    usage: USAGE,
  };
}

/** SSE chunks: role, text in two fragments, each tool call as header + argument fragments, finish, usage. */
function streamChunks(text: string | undefined, calls: WireCall[]): object[] {
  const chunk = (delta: object, finish: string | null = null): object => ({
    ...envelope('chat.completion.chunk'),
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: object[] = [chunk({ role: 'assistant', content: '' })];
  for (const part of splitInTwo(text ?? '')) chunks.push(chunk({ content: part }));
  calls.forEach((c, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    for (const part of splitInTwo(c.arguments)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  chunks.push(chunk({}, calls.length ? 'tool_calls' : 'stop'));
  chunks.push({ ...envelope('chat.completion.chunk'), choices: [], usage: USAGE });
  return chunks;
}

/** Two fragments (by code point, never splitting a surrogate pair), so clients must reassemble. */
function splitInTwo(s: string): string[] {
  const chars = [...s];
  if (chars.length < 2) return s ? [s] : [];
  const mid = Math.ceil(chars.length / 2);
  return [chars.slice(0, mid).join(''), chars.slice(mid).join('')];
}

function sendJson(res: ServerResponse, value: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function sleep(ms: number | undefined): Promise<void> {
  return ms ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
