// Text from a session is neutralised for wherever rxstore prints it: a Markdown or HTML page (read in a
// browser, or with `cat` on a terminal), `--json` and `cat` lines (JSON whose strings hold no raw control
// character), and human lines. A session's tool arguments nested thousands deep are shown too.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/session/writing/create-session.js';
import { runCli } from '../support/inspect-json-schema.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';

/** What a terminal acts on: clear the screen, write the clipboard (OSC 52), ring, a C1 CSI, reorder (RLO), a lone CR. */
const TERMINAL = '\u001b[2J\u001b]52;c;cm0gLXJmIH4=\u0007\u009b31m\u202eevil\u2066\r';
/** Markdown that is live if it ever leaves the HTML block it is put in. */
const MARKDOWN = '\n\n# Injected heading\n\n![tracker](https://evil.invalid/p.png) [click](https://evil.invalid/x)\n\n';
/** Any character a terminal or a browser would act on rather than show (line feed and tab aside). */
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The same in JSON text, where a line feed only ends a line or indents (a string's is `\n`) and a tab is never raw. */
const ACTIVE_IN_JSON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const TOOL_NAME = `grep${MARKDOWN}${TERMINAL}`;
const TITLE = `Title ${TERMINAL}`;

/** A session under a state root whose title, messages, tool names and outputs hold terminal controls and Markdown. */
async function hostileStateRoot(): Promise<{ stateHome: string; dir: string; id: string }> {
  const stateHome = await tempDir('rxstore-safe-output-');
  const callId = 'call_safe_output_1';
  const { dir, id } = await createSession({
    storeDir: join(stateHome, 'projects', 'tmp-work', 'sessions-v4'),
    batches: [
      { operationId: 'session-create', events: [complete({ role: 'system', id: messageId(), content: 'system' })] },
      { operationId: 'title', events: [{ kind: 'session/title', payload: { title: TITLE } }] },
      {
        operationId: 'turn-1',
        turnId: 'turn_00000000000000000000000000000042',
        events: [
          { kind: 'turn/start', payload: { status: 'in_progress' } },
          complete({
            role: 'user',
            id: messageId(),
            origin: 'user',
            content: `say ${TERMINAL}`,
            raw_content: `say ${TERMINAL}`,
          }),
          complete({
            role: 'assistant',
            id: messageId(),
            content: `answer ${TERMINAL}`,
            tool_calls: [
              { id: callId, name: TOOL_NAME, arguments: JSON.stringify({ query: `q${MARKDOWN}${TERMINAL}` }) },
            ],
          }),
          complete({
            role: 'tool',
            id: messageId(),
            tool_call_id: callId,
            name: TOOL_NAME,
            content: `out ${TERMINAL}`,
          }),
          { kind: 'turn/end', payload: { status: 'completed' } },
        ],
      },
    ],
  });
  return { stateHome, dir, id };
}

/** Lines of a Markdown document outside its fenced code blocks (a fence closes with a run at least as long). */
function outsideFences(markdown: string): string[] {
  const lines = markdown.split('\n');
  const outside: string[] = [];
  for (let at = 0; at < lines.length; at += 1) {
    const open = /^(`{3,})/.exec(lines[at]!);
    if (!open) {
      outside.push(lines[at]!);
      continue;
    }
    while (at + 1 < lines.length && !new RegExp(`^\`{${open[1]!.length},}\\s*$`).test(lines[at + 1]!)) at += 1;
    at += 1;
  }
  return outside;
}

describe('pages', () => {
  it('a tool name with blank lines stays inside its <summary>: no heading, image or link reaches the Markdown', async () => {
    const { dir } = await hostileStateRoot();
    const { code, stdout } = await runCli(['view', dir, '--format', 'md']);
    expect(code).toBe(0);
    const outside = outsideFences(stdout);
    const summaries = outside.filter((line) => line.startsWith('<details><summary>'));
    expect(summaries.some((line) => line.includes('grep') && line.endsWith('</summary>'))).toBe(true);
    expect(outside.filter((line) => /^#{1,6}\s/.test(line)).every((line) => !line.includes('Injected'))).toBe(true);
    // A one-line HTML block is raw HTML to CommonMark: its text is never read as Markdown.
    const markdown = outside.filter((line) => !/^<details><summary>.*<\/summary>$/.test(line));
    expect(markdown.join('\n')).not.toMatch(/!\[tracker\]|\]\(https:\/\/evil/);
  });

  it.each(['md', 'html'])(
    'a %s page holds no control character a terminal would act on, and shows each as an escape',
    async (format) => {
      const { dir } = await hostileStateRoot();
      const { code, stdout } = await runCli(['view', dir, '--format', format]);
      expect(code).toBe(0);
      expect(stdout).not.toMatch(ACTIVE);
      expect(stdout).toContain('\\x1b[2J');
      expect(stdout).toContain('\\x1b]52;c;cm0gLXJmIH4=\\x07');
      expect(stdout).toContain('\\x9b31m\\u202eevil\\u2066\\r');
    },
  );

  it('a page written with --to holds no control character either', async () => {
    const { dir } = await hostileStateRoot();
    const to = join(await tempDir('rxstore-safe-page-'), 'page.html');
    expect((await runCli(['view', dir, '--to', to])).code).toBe(0);
    expect(await readFile(to, 'utf8')).not.toMatch(ACTIVE);
  });

  it('a Windows line ending is a line break in a page, not an escape', async () => {
    const stateHome = await tempDir('rxstore-crlf-');
    const { dir } = await createSession({
      storeDir: join(stateHome, 'sessions-v4'),
      batches: [
        {
          operationId: 'one',
          events: [complete({ role: 'user', id: messageId(), origin: 'user', content: 'first\r\nsecond\r\n' })],
        },
      ],
    });
    const { stdout } = await runCli(['view', dir, '--format', 'md']);
    expect(stdout).toContain('first\nsecond\n');
    expect(stdout).not.toContain('\\r');
  });
});

/** One JSON document, or JSON lines. */
function parsedOutput(stdout: string): unknown[] {
  try {
    return [JSON.parse(stdout)];
  } catch {
    return stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as unknown);
  }
}

describe('JSON lines and --json', () => {
  const commands: { shown: string; args: (s: { stateHome: string; dir: string; id: string }) => string[] }[] = [
    { shown: 'cat', args: ({ dir }) => ['cat', dir] },
    { shown: 'cat --records', args: ({ dir }) => ['cat', dir, '--records'] },
    { shown: 'inspect --messages', args: ({ dir }) => ['inspect', dir, '--messages'] },
    { shown: 'inspect --messages --json', args: ({ dir }) => ['inspect', dir, '--messages', '--json'] },
    { shown: 'inspect --json', args: ({ dir }) => ['inspect', dir, '--json'] },
    { shown: 'ls --json', args: ({ stateHome }) => ['ls', '--json', '--state-home', stateHome] },
    { shown: 'where --json', args: ({ stateHome, id }) => ['where', id, '--json', '--state-home', stateHome] },
    { shown: 'export --to -', args: ({ dir }) => ['export', dir, '--to', '-'] },
    { shown: 'export --to - --format json', args: ({ dir }) => ['export', dir, '--to', '-', '--format', 'json'] },
  ];

  it.each(commands)(
    '$shown escapes C0, C1 and bidirectional controls as \\uXXXX: the same JSON, safe on a terminal',
    async ({ args }) => {
      const session = await hostileStateRoot();
      const { code, stdout, stderr } = await runCli(args(session));
      expect(code, stderr).toBe(0);
      expect(stdout).not.toMatch(ACTIVE_IN_JSON);
      // The values are the session's own: a reader of the JSON gets the controls back.
      const values = parsedOutput(stdout);
      expect(JSON.stringify(values)).toMatch(/\\u001b\[2J|\\u001b\]52/);
      expect(JSON.stringify(values)).toContain('\u202eevil');
    },
  );
});

describe('human lines', () => {
  it('view --all names a damaged session with its path escaped', async () => {
    const stateHome = await tempDir('rxstore-safe-site-root-');
    // A folder name is data too: a slug holding an escape sequence, and a damaged log under it.
    const { dir } = await createSession({
      storeDir: join(stateHome, 'projects', `tmp-${TERMINAL}`, 'sessions-v4'),
      batches: [
        { operationId: 'one', events: [complete({ role: 'user', id: messageId(), origin: 'user', content: 'hello' })] },
      ],
    });
    const log = await readFile(join(dir, 'events.frames'));
    log[log.length - 20]! ^= 0xff;
    await writeFile(join(dir, 'events.frames'), log);
    const to = await tempDir('rxstore-safe-site-');
    const { code, stdout, stderr } = await runCli(['view', '--all', '--to', to, '--state-home', stateHome]);
    expect(code).toBe(1);
    expect(stderr).toContain('\\x1b[2J');
    expect(stdout + stderr).not.toMatch(ACTIVE);
  });
});

/** Tool arguments as JSON nested `depth` levels: `{"a":{"a":…}}`. */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe('input of any depth', () => {
  it.each(['md', 'html'])(
    'view --format %s shows a tool call whose arguments are nested 8,000 deep',
    async (format) => {
      const stateHome = await tempDir('rxstore-deep-');
      const callId = 'call_deep_1';
      const { dir } = await createSession({
        storeDir: join(stateHome, 'sessions-v4'),
        batches: [
          {
            operationId: 'deep',
            events: [
              complete({ role: 'user', id: messageId(), origin: 'user', content: 'go deep' }),
              complete({
                role: 'assistant',
                id: messageId(),
                content: '',
                tool_calls: [{ id: callId, name: 'probe', arguments: nested(8000) }],
              }),
              complete({
                role: 'tool',
                id: messageId(),
                tool_call_id: callId,
                name: 'probe',
                content: 'reached the bottom',
              }),
            ],
          },
        ],
      });
      const { code, stdout, stderr } = await runCli(['view', dir, '--format', format]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain('reached the bottom');
      // Shown as sent: indented, 8,000 levels would be 128 MB of spaces.
      expect(stdout).toMatch(/\{(&quot;|")a(&quot;|"):\{(&quot;|")a/);
      expect(stdout.length).toBeLessThan(1_000_000);
    },
  );

  it('arguments nested a few levels are pretty-printed', async () => {
    const stateHome = await tempDir('rxstore-shallow-');
    const callId = 'call_shallow_1';
    const { dir } = await createSession({
      storeDir: join(stateHome, 'sessions-v4'),
      batches: [
        {
          operationId: 'shallow',
          events: [
            complete({ role: 'user', id: messageId(), origin: 'user', content: 'go' }),
            complete({
              role: 'assistant',
              id: messageId(),
              content: '',
              tool_calls: [{ id: callId, name: 'probe', arguments: nested(3) }],
            }),
            complete({ role: 'tool', id: messageId(), tool_call_id: callId, name: 'probe', content: 'ok' }),
          ],
        },
      ],
    });
    const { stdout } = await runCli(['view', dir, '--format', 'md']);
    expect(stdout).toContain('{\n  "a": {\n    "a": {\n      "a": 1\n    }\n  }\n}');
  });
});
