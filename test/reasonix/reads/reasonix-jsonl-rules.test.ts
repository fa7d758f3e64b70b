import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonlSession } from '../../../src/store/jsonl/read-jsonl-session.js';
import { readTranscriptLines } from '../../../src/store/jsonl/read-transcript-lines.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { runCliChild } from '../../support/cli-child.js';
import {
  listSessionDirs,
  reasonixBinary,
  reasonixTitle,
  runReasonix,
  simpleWorkspaceSlug,
} from '../../support/reasonix/reasonix.js';

/**
 * The rules of Reasonix 1.38.11's JSONL loader (internal/agent, `StreamSessionMessagesForMigration`:
 * one json.Decoder over the file, provider messages one after another), each both ways: a
 * transcript breaking it is refused by `reasonix run --resume <id>` and by rxstore (a problem
 * naming the line), and the nearest one keeping it is resumed by Reasonix and read as ok.
 */
const SYSTEM = '{"role":"system","content":"You are terse."}';
const USER = '{"role":"user","content":"Hello there"}';
const REPLY = '{"role":"assistant","content":"Hi."}';
const lines = (...items: string[]) => `${items.join('\n')}\n`;
/** A user message nested `depth` levels deep in all (its own object is the first). */
const nested = (depth: number) =>
  `{"role":"user","content":"deep","protocol_recovery":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

interface JsonlRule {
  rule: string;
  refused: string;
  valid: string;
  /** Reasonix's words after `decode <path>: `, or its whole line (`no session matches`). */
  reasonix: string;
  /** The line rxstore names (none for an empty file). */
  line?: number;
}

const rules: JsonlRule[] = [
  {
    rule: 'a transcript of zero bytes is not a session',
    refused: '',
    valid: '\n',
    reasonix: 'error: no session matches "%ID%"',
  },
  {
    rule: 'no byte-order mark',
    refused: `\ufeff${lines(SYSTEM, USER, REPLY)}`,
    valid: lines(SYSTEM, USER, REPLY),
    reasonix: "invalid character 'ï' looking for beginning of value",
    line: 1,
  },
  {
    rule: 'the last message is whole',
    refused: `${lines(SYSTEM, USER, REPLY)}{"role":"user","content":"cut he`,
    valid: lines(SYSTEM, USER, REPLY).slice(0, -1),
    reasonix: 'unexpected EOF',
    line: 4,
  },
  {
    rule: 'every value is JSON',
    refused: lines(SYSTEM, '{oops', USER),
    valid: lines(SYSTEM, '', USER),
    reasonix: "invalid character 'o' looking for beginning of object key string",
    line: 2,
  },
  {
    rule: 'a value is not an array',
    refused: lines(SYSTEM, '[]', USER),
    valid: lines(SYSTEM, 'null', USER),
    reasonix: 'json: cannot unmarshal array into Go value of type provider.Message',
    line: 2,
  },
  {
    rule: 'a value is not a number',
    refused: lines(SYSTEM, '1', USER),
    valid: lines(SYSTEM, '{}', USER),
    reasonix: 'json: cannot unmarshal number into Go value of type provider.Message',
    line: 2,
  },
  {
    rule: 'a value is not a string',
    refused: lines(SYSTEM, '"x"', USER),
    valid: lines(SYSTEM, '{"content":"x"}', USER),
    reasonix: 'json: cannot unmarshal string into Go value of type provider.Message',
    line: 2,
  },
  {
    rule: 'a role is a string',
    refused: lines(SYSTEM, '{"role":1,"content":"x"}', USER),
    valid: lines(SYSTEM, '{"content":"x"}', USER),
    reasonix: 'json: cannot unmarshal number into Go struct field Message.role of type provider.Role',
    line: 2,
  },
  {
    rule: 'content is a string',
    refused: lines(SYSTEM, '{"role":"user","content":5}', REPLY),
    valid: lines(SYSTEM, '{"role":"user","content":"5","extra":5}', REPLY),
    reasonix: 'json: cannot unmarshal number into Go struct field Message.content of type string',
    line: 2,
  },
  {
    rule: 'a createdAt is written as a whole number',
    refused: lines(SYSTEM, '{"role":"user","content":"x","createdAt":1.0}', REPLY),
    valid: lines(SYSTEM, '{"role":"user","content":"x","createdAt":1,"note":1.0}', REPLY),
    reasonix: 'json: cannot unmarshal number 1.0 into Go struct field Message.createdAt of type int64',
    line: 2,
  },
  {
    rule: 'a message nests at most 10,000 levels deep',
    refused: lines(SYSTEM, nested(10_001), REPLY),
    valid: lines(SYSTEM, nested(9_999), REPLY),
    reasonix: "invalid character '[' exceeded max depth",
    line: 2,
  },
  {
    rule: "a message Reasonix's migration can write again in an event: at most 9,999 levels deep",
    refused: lines(SYSTEM, nested(10_000), REPLY),
    valid: lines(SYSTEM, nested(9_999), REPLY),
    reasonix:
      "error: json: error calling MarshalJSON for type json.RawMessage: invalid character '[' exceeded max depth",
    line: 2,
  },
  {
    rule: 'no NUL byte between messages',
    refused: `${lines(SYSTEM, USER, REPLY)}\u0000\n`,
    valid: `${lines(SYSTEM, USER, REPLY)} \t\r\n`,
    reasonix: "invalid character '\\x00' looking for beginning of value",
    line: 4,
  },
];

/** Transcripts Reasonix resumes that a line-by-line reader would refuse. */
const opened: { rule: string; text: string; messages: number }[] = [
  { rule: 'CRLF line ends', text: lines(SYSTEM, USER, REPLY).replace(/\n/g, '\r\n'), messages: 3 },
  { rule: 'blank lines between messages', text: `${SYSTEM}\n\n\n${USER}\n\n${REPLY}\n`, messages: 3 },
  {
    rule: 'a message over several lines',
    text: lines(SYSTEM, JSON.stringify({ role: 'user', content: 'Hello there' }, null, 2), REPLY),
    messages: 3,
  },
  { rule: 'two messages on one line', text: lines(`${SYSTEM} ${USER}`, REPLY), messages: 3 },
  { rule: 'keys in another case', text: lines(SYSTEM, '{"Role":"user","CONTENT":"Hello there"}', REPLY), messages: 3 },
  { rule: 'whitespace only', text: ' \n\n', messages: 0 },
];

interface Judged {
  code: number | null;
  said: string[];
  file: string;
  read: Awaited<ReturnType<typeof readJsonlSession>>;
  listed: Awaited<ReturnType<typeof readTranscriptLines>>;
}

/** The listing of a state root holding the transcript alone (`ls --json --no-cache`): its one copy's status and problem code. */
async function listedAs(text: string): Promise<{ status: string; problemCode: string | null }> {
  const home = await mkdtemp(join(tmpdir(), 'rxstore-jsonl-listed-'));
  try {
    const dir = join(home, 'projects', simpleWorkspaceSlug(join(home, 'ws')), 'sessions');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'rule-case.jsonl'), text);
    const run = await runCliChild(['ls', '--json', '--no-cache', '--state-home', home], {
      env: { ...process.env, XDG_CACHE_HOME: join(home, 'cache') },
    });
    const [copy] = (JSON.parse(run.stdout) as { copies: { status: string; problemCode: string | null }[] }[])[0]!
      .copies;
    return { status: copy!.status, problemCode: copy!.problemCode };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

async function judge(text: string): Promise<Judged> {
  const home = await mkdtemp(join(tmpdir(), 'rxstore-jsonl-rule-'));
  try {
    const workspace = join(home, 'ws');
    const dir = join(home, 'projects', simpleWorkspaceSlug(workspace), 'sessions');
    await mkdir(workspace, { recursive: true });
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'rule-case.jsonl');
    await writeFile(file, text);
    const read = await readJsonlSession(file);
    const listed = await readTranscriptLines(file);
    const mock = await startMockModel([{ text: 'Resumed.' }]);
    try {
      const run = await runReasonix({
        home,
        cwd: workspace,
        args: ['run', '--resume', 'rule-case', 'Still there?'],
        mock,
        permissionMode: 'danger-full-access',
      });
      return {
        code: run.code,
        said: `${run.stdout}\n${run.stderr}`.split('\n').map((line) => line.trim()),
        file,
        read,
        listed,
      };
    } finally {
      await mock.close();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe.skipIf(!reasonixBinary())(
  reasonixTitle(
    'JSONL loader rules: refused by Reasonix 1.38.11 and rxstore, the nearest valid transcript resumed by both',
  ),
  () => {
    it.concurrent.each(rules)('$rule', async (rule) => {
      const refused = await judge(rule.refused);
      expect(refused.code, refused.said.join('\n')).toBe(1);
      const expected = rule.reasonix.startsWith('error:')
        ? rule.reasonix.replace('%ID%', 'rule-case')
        : `error: decode ${refused.file}: ${rule.reasonix}`;
      expect(refused.said).toContain(expected);
      expect(refused.read.status).toBe('damaged');
      const errors = refused.read.problems.filter((problem) => problem.severity === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject(
        rule.line !== undefined
          ? { data: { file: refused.file, line: rule.line } }
          : { code: 'RX_JSONL_EMPTY', data: { file: refused.file } },
      );

      const valid = await judge(rule.valid);
      expect(valid.code, valid.said.join('\n')).toBe(0);
      expect(valid.read.status).toBe('ok');
      expect(valid.listed.problem).toBeNull();
    });

    it.concurrent.each([
      ['zero bytes', ''],
      ['blank lines only', '\n\n\n'],
      ['whitespace lines only', ' \n\t\n\r\n'],
    ])(
      'a transcript of %s: the built CLI gives the verdict Reasonix gives, resuming and migrating it',
      async (_, text) => {
        const home = await mkdtemp(join(tmpdir(), 'rxstore-jsonl-blank-'));
        try {
          const workspace = join(home, 'ws');
          const dir = join(home, 'projects', simpleWorkspaceSlug(workspace), 'sessions');
          await mkdir(workspace, { recursive: true });
          await mkdir(dir, { recursive: true });
          const file = join(dir, 'blank.jsonl');
          await writeFile(file, text);
          const inspected = await runCliChild(['inspect', file, '--json']);
          const migration = await runCliChild([
            'migrate',
            'jsonl-to-v4',
            file,
            '--dry-run',
            '--json',
            '--state-home',
            home,
          ]);
          const mock = await startMockModel([{ text: 'Resumed.' }]);
          const run = await runReasonix({
            home,
            cwd: workspace,
            args: ['run', '--resume', 'blank', 'Still there?'],
            mock,
            permissionMode: 'danger-full-access',
          }).finally(() => mock.close());
          const said = `${run.stdout}\n${run.stderr}`.split('\n').map((line) => line.trim());
          const migrated = listSessionDirs(home).map((session) => basename(session));
          if (text === '') {
            // Reasonix lists no session for it, and migrates nothing: rxstore refuses it as not found (exit 2).
            expect({ code: run.code, migrated }).toEqual({ code: 1, migrated: [] });
            expect(said).toContain('error: no session matches "blank"');
            expect(inspected.code).toBe(2);
            expect(inspected.stderr).toContain('RX_JSONL_EMPTY');
            expect(migration.code).not.toBe(0);
            expect(migration.stdout).not.toContain('would-migrate');
            return;
          }
          // Reasonix migrates it to an empty session and takes a new turn in it: rxstore reads it as ok and would migrate it there.
          expect(run.code, said.join('\n')).toBe(0);
          expect(migrated).toHaveLength(1);
          expect(inspected.code, inspected.stderr).toBe(0);
          expect(JSON.parse(inspected.stdout)).toMatchObject({ status: 'ok', messages: { total: 0 } });
          expect(migration.code, migration.stderr).toBe(0);
          const [planned] = JSON.parse(migration.stdout) as { report: { action: string; targetId: string } }[];
          expect(planned!.report).toMatchObject({ action: 'would-migrate', targetId: migrated[0] });
        } finally {
          await rm(home, { recursive: true, force: true });
        }
      },
    );

    it.concurrent('a byte-order mark or an empty file is found even by a listing that reads no further', async () => {
      for (const text of ['', `\ufeff${lines(SYSTEM, USER)}`]) {
        const judged = await judge(text);
        expect(judged.code).toBe(1);
        expect(judged.listed.problem).not.toBeNull();
      }
    });

    it.concurrent('a message id used twice is refused when Reasonix migrates the transcript', async () => {
      const judged = await judge(
        lines('{"role":"system","id":"same","content":"s"}', '{"role":"user","id":"same","content":"u"}', REPLY),
      );
      expect(judged.code).toBe(1);
      expect(judged.said).toContain(
        'error: damaged session store: invalid message/complete payload at 2: duplicate stable message id "same"',
      );
      expect(judged.read.status).toBe('damaged');
      expect(judged.read.problems.find((problem) => problem.severity === 'error')).toMatchObject({ data: { line: 2 } });
    });

    it.concurrent('a tool call answered twice is refused when Reasonix migrates the transcript, and ls and inspect say so', async () => {
      const call = '{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{}"}]}';
      const result = '{"role":"tool","tool_call_id":"c1","content":"done"}';
      const text = lines(SYSTEM, USER, call, result, result, REPLY);
      const judged = await judge(text);
      expect(judged.code, judged.said.join('\n')).toBe(1);
      expect(judged.read.status).toBe('damaged');
      const listed = await listedAs(text);
      expect(listed).toMatchObject({ status: 'damaged', problemCode: 'RX_STRICT_PAYLOAD' });
    });

    it.concurrent("a tool call in OpenAI's nested form loses its name and arguments in Reasonix, whose gate refuses to resume: rxstore warns, naming the line", async () => {
      const call =
        '{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}}]}';
      const judged = await judge(
        lines(SYSTEM, USER, call, '{"role":"tool","tool_call_id":"c1","content":"a b"}', REPLY),
      );
      expect(judged.code, judged.said.join('\n')).toBe(1);
      expect(judged.said.some((line) => line.startsWith('error: transcript gate:'))).toBe(true);
      expect(judged.read.problems).toContainEqual(
        expect.objectContaining({
          code: 'RX_EMPTY_TOOL_NAME',
          severity: 'warning',
          data: { file: judged.file, line: 3 },
        }),
      );
      // The same call in Reasonix's flat form is resumed, and rxstore has nothing to say of it.
      const flat = await judge(
        lines(
          SYSTEM,
          USER,
          call.replace(
            '"type":"function","function":{"name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}',
            '"name":"bash","arguments":"{\\"command\\":\\"ls\\"}"',
          ),
          '{"role":"tool","tool_call_id":"c1","content":"a b"}',
          REPLY,
        ),
      );
      expect(flat.code, flat.said.join('\n')).toBe(0);
      expect(flat.read.problems).toEqual([]);
    });

    it.concurrent.each(opened)('resumed by both: $rule', async ({ text, messages }) => {
      const judged = await judge(text);
      expect(judged.code, judged.said.join('\n')).toBe(0);
      expect(judged.read.status).toBe('ok');
      expect(judged.read.projection.transcript).toHaveLength(messages);
    });
  },
);
