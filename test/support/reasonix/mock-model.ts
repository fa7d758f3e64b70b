// A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for driving the real
// Reasonix offline (shared/spec/driving-reasonix-offline.md, "The model endpoint").
// POST /v1/chat/completions answers as SSE chunks when `stream` is true (Reasonix always asks so), else as
// one JSON completion; GET /v1/models lists the one model. Replies are consumed in order; every request body
// is recorded, because the `messages` Reasonix sends on a resumed turn are its own view of the stored session.
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockToolCall {
  /**
   * Reasonix 1.38.11 tool name and arguments (from the `tools` list it sends), e.g. `bash` {command},
   * `read_file` {path, offset?, limit?}, `write_file` {path, content}, `edit_file` {path, old_string, new_string}.
   */
  name: string;
  /** Sent as its JSON text in `function.arguments`. */
  arguments: Record<string, unknown>;
  /** Call id; defaults to `call_<n>` numbered across the server's lifetime. */
  id?: string;
}

export interface MockReply {
  /** Assistant text. */
  text?: string;
  /** Tool calls of this assistant turn (several = parallel calls). */
  toolCalls?: MockToolCall[];
  /** Wait this long (after the SSE headers) before answering, so a turn stays in progress; cut short by close(). */
  holdMs?: number;
  /** Wait until this settles (after the SSE headers) before answering, so a test decides when the turn ends; cut short by close(). */
  holdUntil?: Promise<unknown>;
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
  /** The script entry answered; undefined for compaction requests, an exhausted script, or other routes. */
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

/** Answer given when the script is exhausted (extra rounds), so Reasonix never hangs. */
export const FALLBACK_TEXT = 'Done.';

/** Answer to Reasonix's compaction-summary requests; they never consume the script. */
export const COMPACTION_SUMMARY_TEXT = '## Goal\n- Mock conversation compacted by the rxstore test harness.';

/**
 * Reasonix 1.38.11 asks for a compaction summary with an ordinary chat request whose last message is a user
 * message starting with this text (and which carries `max_tokens`).
 */
const COMPACTION_PROMPT_START = 'Compact the preceding conversation prefix';

export function isCompactionRequest(body: ChatRequest): boolean {
  const last = body.messages.at(-1);
  return last?.role === 'user' && typeof last.content === 'string' && last.content.startsWith(COMPACTION_PROMPT_START);
}

const MODEL_ID = 'mock-model';

export async function startMockModel(script: MockReply[]): Promise<MockModel> {
  const pending = [...script];
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let callCounter = 0;
  // Ends reply holds when the mock closes, so no timer outlives it.
  const closing = new AbortController();
  const closed = new Promise<void>((resolve) =>
    closing.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  const hold = async ({ holdMs, holdUntil }: MockReply): Promise<unknown> => {
    if (holdUntil) await Promise.race([holdUntil, closed]);
    return holdMs ? delay(holdMs, undefined, { signal: closing.signal }) : undefined;
  };

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
    const reply = isChat && body && !isCompactionRequest(body) ? pending.shift() : undefined;
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
    const answer = reply ?? { text: isCompactionRequest(body) ? COMPACTION_SUMMARY_TEXT : FALLBACK_TEXT };
    const calls = (answer.toolCalls ?? []).map((c) => ({
      id: c.id ?? `call_${++callCounter}`,
      name: c.name,
      arguments: JSON.stringify(c.arguments),
    }));
    const usage = estimateUsage(raw, answer.text, calls);
    if (!body.stream) {
      await hold(answer);
      if (answer.dropConnection) return void res.destroy();
      sendJson(res, completion(answer.text, calls, usage));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    await hold(answer);
    if (answer.dropConnection) return void res.destroy();
    for (const chunk of streamChunks(answer.text, calls, usage)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
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
      closing.abort();
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

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Roughly 4 bytes a token, so Reasonix's context accounting (and automatic compaction) sees realistic sizes. */
function estimateUsage(requestBody: string, text: string | undefined, calls: WireCall[]): Usage {
  const prompt = Math.ceil(Buffer.byteLength(requestBody) / 4);
  const completion =
    Math.ceil(Buffer.byteLength((text ?? '') + calls.map((c) => c.name + c.arguments).join('')) / 4) + 1;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function envelope(object: string): { id: string; object: string; created: number; model: string } {
  return { id: 'chatcmpl-mock', object, created: Math.floor(Date.now() / 1000), model: MODEL_ID };
}

function completion(text: string | undefined, calls: WireCall[], usage: Usage): object {
  const message: Record<string, unknown> = { role: 'assistant', content: text ?? (calls.length ? null : '') };
  if (calls.length) {
    message.tool_calls = calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    ...envelope('chat.completion'),
    choices: [{ index: 0, message, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
    usage,
  };
}

/** SSE chunks: role, text in two fragments, each tool call as header + argument fragments, finish, usage. */
function streamChunks(text: string | undefined, calls: WireCall[], usage: Usage): object[] {
  const chunk = (delta: object, finish: string | null = null): object => ({
    ...envelope('chat.completion.chunk'),
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: object[] = [chunk({ role: 'assistant', content: '' })];
  for (const part of splitInTwo(text ?? '')) chunks.push(chunk({ content: part }));
  calls.forEach((c, index) => {
    chunks.push(
      chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }),
    );
    for (const part of splitInTwo(c.arguments))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  chunks.push(chunk({}, calls.length ? 'tool_calls' : 'stop'));
  chunks.push({ ...envelope('chat.completion.chunk'), choices: [], usage });
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
