import { copyFileSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  appendBatches,
  listSessions,
  createSession,
  openSession,
  search,
  type FoundHit,
  type IndexRecord,
  type SearchOptions,
} from '../../src/index.js';
import type { BatchToWrite } from '../../src/codec/encode-batch.js';
import { FIXTURE_NAMES, fixture } from '../support/fixtures.js';
import { complete } from '../support/sessions/sample-session.js';
import { seededRandom } from '../support/seeded-random.js';
import { tempDir } from '../support/temp-dir.js';
import { runNodeChild } from '../support/cli-child.js';
import { repoRoot } from '../support/paths.js';
import { findSessionCopies } from '../../src/store/listing/find-session-copies.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { groupConversations } from '../../src/store/listing/group-conversations.js';
import { appendBatch } from '../support/faults/faults.js';

const VOCABULARY = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
  'parser',
  'frame',
  'cursor',
  'zstd',
  'ok',
  'go',
  '你好',
  '世界',
  'Émile',
  'naïve',
  'x*y',
  '(paren)',
  '-dash',
  'NEAR',
  '"quoted"',
];

let ids = 0;
const id = () => `01SEARCH${String((ids += 1)).padStart(18, '0')}`;
const user = (text: string) =>
  complete({
    role: 'user',
    id: id(),
    origin: 'user',
    content: text,
    raw_content: text,
    createdAt: Date.parse('2026-05-01T10:00:00Z') + ids * 1000,
  });
const answer = (text: string) =>
  complete({ role: 'assistant', id: id(), content: text, createdAt: Date.parse('2026-05-01T10:00:00Z') + ids * 1000 });

/** A turn: a prompt, a shell call with its output, an edit, a web search with its result, and an answer. */
function turn(n: number, words: () => string): BatchToWrite {
  const [bash, edit, web] = [`call_bash_${n}_${ids}`, `call_edit_${n}_${ids}`, `call_web_${n}_${ids}`];
  return {
    operationId: `search-test:${n}:${ids}`,
    turnId: `turn_${String(ids).padStart(32, '0')}`,
    events: [
      user(words()),
      complete({
        role: 'assistant',
        id: id(),
        content: '',
        tool_calls: [
          {
            id: bash,
            name: 'bash',
            arguments: JSON.stringify({
              command: `grep ${words()}`,
              description: `look through the sources, turn ${n}`,
            }),
          },
          {
            id: edit,
            name: 'edit_file',
            arguments: JSON.stringify({ path: `src/${n}.ts`, old_string: words(), new_string: words() }),
          },
          { id: web, name: 'web_search', arguments: JSON.stringify({ query: words() }) },
        ],
      }),
      complete({
        role: 'tool',
        id: id(),
        tool_call_id: bash,
        name: 'bash',
        content: words(),
        tool_execution: { state: 'completed', exitCode: n % 3 },
      }),
      complete({ role: 'tool', id: id(), tool_call_id: edit, name: 'edit_file', content: 'edited' }),
      complete({ role: 'tool', id: id(), tool_call_id: web, name: 'web_search', content: `found ${words()}` }),
      answer(words()),
    ],
  };
}

/** A state root of generated sessions, and the real fixtures as further roots. */
/** The store the generated sessions of a state root are in. */
const storeOf = (stateRoot: string) => join(stateRoot, 'projects', '-tmp-search-ws', 'sessions-v4');

async function machine(): Promise<{ options: SearchOptions; stateRoot: string; storeDir: string }> {
  const stateRoot = await tempDir('rxstore-search-');
  const storeDir = storeOf(stateRoot);
  const { next: random } = seededRandom(37);
  const words = () =>
    Array.from(
      { length: 3 + Math.floor(random() * 12) },
      () => VOCABULARY[Math.floor(random() * VOCABULARY.length)],
    ).join(' ');
  for (let n = 0; n < 12; n += 1) {
    await createSession({
      storeDir,
      batches: Array.from({ length: 1 + (n % 4) }, (_, t) => turn(n * 10 + t, words)),
    });
  }
  const roots = [
    { kind: 'state' as const, path: stateRoot, lines: ['1.x' as const] },
    ...FIXTURE_NAMES.map((name) => ({ kind: 'state' as const, path: fixture(name).root, lines: ['1.x' as const] })),
  ];
  return { stateRoot, storeDir, options: { roots, platform: 'linux', cacheDir: join(stateRoot, 'cache') } };
}

async function hitsOf(query: string, options: SearchOptions): Promise<FoundHit[]> {
  const hits: FoundHit[] = [];
  for await (const hit of search(query, options)) hits.push(hit);
  return hits;
}
/**
 * `machine()` with the clock ten minutes ahead of its files (set back when the test ends): a listing is kept
 * between searches only for files changed long enough ago, so a process searching again may watch them.
 */
async function machineAheadOfItsFiles() {
  const { options, stateRoot, storeDir } = await machine();
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 600_000 });
  onTestFinished(() => {
    vi.useRealTimers();
  });
  const snippets = async (query: string) => (await hitsOf(query, options)).map((hit) => hit.snippet);
  return { options, stateRoot, storeDir, snippets };
}
const placesOf = (hits: readonly FoundHit[]) => hits.map((hit) => `${hit.sessionId} ${hit.key} ${hit.kind}`).sort();

/** SQLite finds the index file whole, checked on a copy in `scratch` (a search of this process keeps the file itself locked). */
async function expectWholeIndex(index: string, scratch: string): Promise<void> {
  const { default: sqlite } = (await import('node-sqlite3-wasm')) as unknown as {
    default: typeof import('node-sqlite3-wasm');
  };
  const copy = join(scratch, 'index-copy.sqlite');
  await cp(index, copy);
  const db = new sqlite.Database(copy, { readOnly: true });
  try {
    expect(db.get('pragma integrity_check')).toEqual({ integrity_check: 'ok' });
  } finally {
    db.close();
  }
}

/** The texts of a record, by kind, as a person would list what can be searched. */
function textsOf(record: IndexRecord): [string, string][] {
  if (record.type === 'message') return [[record.role, record.text]];
  // A shell call's arguments besides its command line (all of them when it is no string) are its input.
  if (record.type === 'command')
    return [
      ['command', record.command],
      ['tool-input', stringsOf(JSON.parse(record.arguments), record.command).join('\u001e')],
      ['tool-output', record.output],
    ];
  if (record.type === 'result') return [['tool-output', record.output]];
  // Any other tool's arguments, a file tool's too, are searched by the strings they hold, unescaped.
  let args: unknown = record.arguments;
  try {
    args = JSON.parse(record.arguments);
  } catch {
    // Not JSON: searched as it is.
  }
  const input: [string, string] = [
    'tool-input',
    args !== null && typeof args === 'object' && !Array.isArray(args)
      ? stringsOf(args).join('\u001e')
      : record.arguments,
  ];
  if (record.type === 'call') return [input, ['tool-output', record.output]];
  return [
    ['file', [record.path, record.destination].filter(Boolean).join('\n')],
    input,
    ['tool-output', record.output],
  ];
}

/** The strings in a call's arguments, but for a top-level one that is `leftOut`. */
function stringsOf(args: object, leftOut?: string): string[] {
  const strings = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value].filter((text) => text !== '')
      : typeof value === 'number' || typeof value === 'boolean'
        ? [String(value)]
        : value !== null && typeof value === 'object'
          ? Object.values(value).flatMap(strings)
          : [];
  return Object.values(args).flatMap((value) => (value === leftOut ? [] : strings(value)));
}

/** Brute force: every text of every conversation read whole, and whether it holds every term (lower-cased unless the query has a capital). */
async function bruteForce(terms: string[], options: SearchOptions): Promise<string[]> {
  const found = await findSessionCopies([...options.roots]);
  const fold = (text: string) => (terms.some((term) => /\p{Lu}/u.test(term)) ? text : text.toLowerCase());
  const places: string[] = [];
  for (const {
    copies: [copy],
  } of groupConversations(found, 'linux')) {
    try {
      for await (const record of (await openSession(copy.path)).records()) {
        for (const [kind, text] of textsOf(record))
          if (text !== '' && terms.every((term) => fold(text).includes(fold(term))))
            places.push(`${copy.id} ${record.key} ${kind}`);
      }
    } catch {
      // Damage: what came before it was searched.
    }
  }
  return places.sort();
}

describe('rxstore search finds every place a word or phrase was said', () => {
  let options: SearchOptions;
  beforeAll(async () => {
    ({ options } = await machine());
  });

  // Words, short words, phrases and engine syntax, each query with the terms a brute-force scan looks for.
  const queries: [string, string[]][] = [
    ['parser', ['parser']],
    ['ok', ['ok']],
    ['go', ['go']],
    ['kilo lima', ['kilo', 'lima']],
    ['"kilo lima"', ['kilo lima']],
    ['"frame cursor zstd"', ['frame cursor zstd']],
    ['你好', ['你好']],
    ['Émile', ['Émile']],
    ['naïve', ['naïve']],
    ['x*y', ['x*y']],
    ['(paren)', ['(paren)']],
    ['-dash', ['-dash']],
    ['NEAR', ['NEAR']],
    ['"\\"quoted\\""', ['"quoted"']],
    ['NEAR(kilo lima) OR "x*y"', ['NEAR(kilo', 'lima)', 'OR', 'x*y']],
    // A quote that opens no phrase is a character to find.
    ['"', ['"']],
    ['" "', ['"']],
    ['"""', ['"']],
    ['"kilo lima', ['"kilo', 'lima']],
    ['query"', ['query"']],
    ['README', ['README']],
    ['files', ['files']],
    ['missing-dir', ['missing-dir']],
    ['hello', ['hello']],
    ['ls', ['ls']],
  ];
  it.each(queries.map(([query, terms]) => ({ query, terms })))(
    'recall is whole for $query: every place a brute-force scan finds, through the index and without it',
    async ({ query, terms }) => {
      const expected = await bruteForce(terms, options);
      if (['parser', 'kilo lima', 'README', 'files'].includes(query)) expect(expected.length).toBeGreaterThan(0);
      const [indexed, direct] = [await hitsOf(query, options), await hitsOf(query, { ...options, index: false })];
      expect(placesOf(indexed)).toEqual(expected);
      // Without the index: the same hits, in the same order, with the same scores.
      expect(direct.map((hit) => `${hit.sessionId} ${hit.key} ${hit.kind} ${hit.score}`)).toEqual(
        indexed.map((hit) => `${hit.sessionId} ${hit.key} ${hit.kind} ${hit.score}`),
      );
    },
  );

  it('ranks the session most about a term first, and an exact phrase above its words apart', async () => {
    const storeDir = storeOf(options.roots[0]!.path);
    const about = await createSession({
      storeDir,
      batches: [
        {
          operationId: 'about',
          events: [
            user('kumquat jam'),
            answer('kumquat trees, kumquat fruit'),
            user('more kumquat'),
            answer('kumquat is a citrus'),
          ],
        },
      ],
    });
    await createSession({
      storeDir,
      batches: [{ operationId: 'mention', events: [user('a kumquat once'), answer('noted')] }],
    });
    const hits = await hitsOf('kumquat', options);
    expect(hits[0]!.sessionId).toBe(about.id);
    const phrase = await hitsOf('"citrus kumquat"', options);
    expect(phrase).toHaveLength(0);
    const ordered = await hitsOf('kumquat is', options);
    expect(ordered[0]!.snippet).toBe('kumquat is a citrus');
  });

  it('a limit keeps the first hits of the whole ranking, ties at the cut broken as without one', async () => {
    const storeDir = storeOf(options.roots[0]!.path);
    // Sessions that say the same, so their hits tie on score and only time, path and key order them.
    for (let copy = 0; copy < 6; copy += 1)
      await createSession({
        storeDir,
        batches: [{ operationId: `tied-${copy}`, events: [user('quince paste'), answer('quince paste')] }],
      });
    for (const query of ['quince', 'parser', '"kilo lima"', 'alpha']) {
      const whole = await hitsOf(query, options);
      expect(whole.length).toBeGreaterThan(5);
      for (const limit of [1, 2, 3, 5, whole.length, whole.length + 1, 2 ** 53, 1e20]) {
        const kept = await hitsOf(query, { ...options, limit });
        expect(kept.map((hit) => `${hit.sessionId} ${hit.key} ${hit.kind} ${hit.score}`)).toEqual(
          whole.slice(0, limit).map((hit) => `${hit.sessionId} ${hit.key} ${hit.kind} ${hit.score}`),
        );
      }
    }
  });

  it('a session is lifted by its hits alone: the messages that do not match count for nothing', async () => {
    const storeDir = storeOf(options.roots[0]!.path);
    const chatty = await createSession({
      storeDir,
      batches: [
        {
          operationId: 'one-hit-of-many',
          events: [user('medlar tart'), ...Array.from({ length: 8 }, (_, n) => answer(`nothing to see ${n}`))],
        },
      ],
    });
    const brief = await createSession({
      storeDir,
      batches: [{ operationId: 'one-hit-of-one', events: [user('medlar tart')] }],
    });
    // Through the trigrams, and through the check a pattern or a short word takes.
    for (const [query, extra] of [
      ['medlar', {}],
      ['medl.r', { regex: true }],
    ] as const) {
      const hits = await hitsOf(query, { ...options, ...extra });
      const scoreOf = (sessionId: string) => hits.find((hit) => hit.sessionId === sessionId)!.score;
      expect(scoreOf(chatty.id)).toBe(scoreOf(brief.id));
    }
  });

  it('narrowed to a session, the stores read directly score and order its hits as the index does', async () => {
    const [first] = await hitsOf('parser', options);
    const session = first!.sessionId.slice(0, 6);
    const said = (hits: FoundHit[]) => hits.map((hit) => `${hit.sessionId} ${hit.key} ${hit.kind} ${hit.score}`);
    const indexed = await hitsOf('parser', { ...options, session });
    expect(indexed.length).toBeGreaterThan(1);
    expect(said(await hitsOf('parser', { ...options, session, index: false }))).toEqual(said(indexed));
  });

  it('a word in most texts still ranks the text that says it most first', async () => {
    // A store of its own, where the word is in every text: BM25 gives such a word its least weight.
    const stateRoot = await tempDir('rxstore-search-common-');
    const storeDir = storeOf(stateRoot);
    const often = await createSession({
      storeDir,
      batches: [{ operationId: 'often', events: [user('quince jam, quince pie, quince tart')] }],
    });
    for (let copy = 0; copy < 4; copy += 1)
      await createSession({ storeDir, batches: [{ operationId: `once-${copy}`, events: [user('a quince tart')] }] });
    const common = {
      roots: [{ kind: 'state' as const, path: stateRoot, lines: ['1.x' as const] }],
      platform: 'linux' as const,
      cacheDir: join(stateRoot, 'cache'),
    };
    const hits = await hitsOf('quince', common);
    expect(hits).toHaveLength(5);
    expect(hits[0]!.sessionId).toBe(often.id);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('a quoted phrase matches its words across a line break, never apart or out of order', async () => {
    const storeDir = storeOf(options.roots[0]!.path);
    await createSession({
      storeDir,
      batches: [
        {
          operationId: 'line-break',
          events: [
            user('the quince\nmarmalade of a log'),
            answer('quince  \r\n\tmarmalade twice'),
            // White space beyond ASCII's, as a person's query means it too.
            user('a quince\u3000marmalade and a quince\u00a0marmalade'),
            user('marmalade quince reversed'),
            answer('quince and marmalade apart'),
          ],
        },
      ],
    });
    for (const index of [true, false]) {
      const hits = await hitsOf('"quince marmalade"', { ...options, index });
      expect(hits.map((hit) => hit.snippet.slice(hit.matches[0]!.start, hit.matches[0]!.end)).sort()).toEqual([
        'quince     marmalade',
        'quince marmalade',
        'quince\u3000marmalade',
      ]);
      expect(hits.every((hit) => hit.index !== null)).toBe(true);
    }
  });

  it('a phrase of thousands of words is searched, with the index and without', async () => {
    const storeDir = storeOf(options.roots[0]!.path);
    const long = Array.from({ length: 2500 }, () => 'ab').join(' ');
    await createSession({
      storeDir,
      batches: [{ operationId: 'long-phrase', events: [user(`said ${long} once`), answer('ab ab')] }],
    });
    const phrase = Array.from({ length: 2000 }, () => 'ab').join(' ');
    for (const index of [true, false]) {
      const hits = await hitsOf(`"${phrase}"`, { ...options, index });
      expect(hits.map((hit) => hit.role)).toEqual(['user']);
      expect(hits[0]!.matches.length).toBeGreaterThan(0);
    }
  });

  it('a quote inside a word, alone or never closed is a character to find, never a phrase break', async () => {
    const storeDir = storeOf(options.roots[0]!.path);
    await createSession({
      storeDir,
      batches: [
        {
          operationId: 'quotes',
          events: [user('a duckbilled platypus'), answer('the word plat"ypus, quoted: " alone')],
        },
      ],
    });
    for (const index of [true, false]) {
      const snippets = async (query: string) => (await hitsOf(query, { ...options, index })).map((hit) => hit.snippet);
      expect(await snippets('plat"ypus')).toEqual(['the word plat"ypus, quoted: " alone']);
      expect(await snippets('platypus')).toEqual(['a duckbilled platypus']);
      expect(await snippets('"platypus"')).toEqual(['a duckbilled platypus']);
      expect(await snippets('"duckbilled platypus"')).toEqual(['a duckbilled platypus']);
      for (const quotes of ['"', '" "', '"""'])
        expect(await snippets(quotes), quotes).toContain('the word plat"ypus, quoted: " alone');
    }
  });

  it('case matters only when the query has a capital', async () => {
    const storeDir = storeOf(options.roots[0]!.path);
    await createSession({
      storeDir,
      batches: [{ operationId: 'case', events: [user('Tangerine upper'), answer('tangerine lower')] }],
    });
    expect((await hitsOf('tangerine', options)).map((hit) => hit.snippet).sort()).toEqual([
      'Tangerine upper',
      'tangerine lower',
    ]);
    expect((await hitsOf('Tangerine', options)).map((hit) => hit.snippet)).toEqual(['Tangerine upper']);
    // A pattern's escape is no capital (\S is any character but space), but a class of one case asks for that case.
    const found = async (pattern: string) =>
      (await hitsOf(pattern, { ...options, regex: true })).map((hit) => hit.snippet).sort();
    expect(await found('tangerin\\S')).toEqual(['Tangerine upper', 'tangerine lower']);
    expect(await found('\\p{Lu}angerine')).toEqual(['Tangerine upper']);
    expect(await found('[[:upper:]]angerine')).toEqual(['Tangerine upper']);
    expect(await found('\\p{Ll}angerine')).toEqual(['tangerine lower']);
    expect(await found('[[:lower:]]angerine')).toEqual(['tangerine lower']);
    expect(await found('\\P{Lu}angerine')).toEqual(['tangerine lower']);
    // A class named by one letter (\pZ, a separator) is no capital either.
    expect(await found('tangerine\\pZupper')).toEqual(['Tangerine upper']);
  });

  it('a pathological regular expression runs in linear time and still answers', async () => {
    const storeDir = storeOf(options.roots[0]!.path);
    await createSession({
      storeDir,
      batches: [{ operationId: 'regex', events: [user(`${'a'.repeat(5000)}b`), answer('aaaa')] }],
    });
    const hits = await hitsOf('^(a+)+$', { ...options, regex: true });
    expect(hits.map((hit) => hit.snippet)).toEqual(['aaaa']);
    await expect(hitsOf('(unclosed', { ...options, regex: true })).rejects.toMatchObject({ code: 'RX_INVALID_INPUT' });
    await expect(hitsOf('  ', options)).rejects.toMatchObject({ code: 'RX_INVALID_INPUT' });
  });

  it('a file named with ./, a doubled slash or /./ is the file its plain path names', async () => {
    const plain = placesOf(await hitsOf('', { ...options, file: 'src/0.ts' }));
    expect(plain.length).toBeGreaterThan(0);
    for (const file of ['./src/0.ts', 'src//0.ts', 'src/./0.ts', 'src/../src/0.ts'])
      for (const index of [true, false])
        expect(placesOf(await hitsOf('', { ...options, file, index })), file).toEqual(plain);
  });

  it('a NUL in a query is text to search for, never a query the engine refuses', async () => {
    for (const query of ['wom\u0000bat', '"the wom\u0000bat"', 'm\u0000b', 'kilo\u0000']) {
      const [indexed, direct] = [await hitsOf(query, options), await hitsOf(query, { ...options, index: false })];
      expect(placesOf(direct), JSON.stringify(query)).toEqual(placesOf(indexed));
    }
  });

  it.each([
    ['an invalid Date', { since: new Date('x') }],
    ['an invalid Date', { until: new Date('2026-02-30T99:00Z') }],
    ['a time that is no Date', { since: '2026-05-01' }],
    ['a negative around', { around: -1 }],
    ['a fractional around', { around: 1.5 }],
    ['a limit of 0', { limit: 0 }],
    ['kinds that are no list', { kinds: 'user' }],
    ['kinds that are no list', { kinds: 3 }],
    ['an unknown kind', { kinds: ['bogus'] }],
    ['a session id that is no string', { session: 3 }],
    ['a file that is no string', { file: {} }],
    // Each would narrow to nothing, or to everything, in silence.
    ['an empty list of kinds', { kinds: [] }],
    ['an empty tool', { tool: '' }],
    ['an empty file', { file: '' }],
    ['an empty workspace', { workspace: '' }],
    ['an empty session id', { session: '' }],
    ['a blank tool', { tool: ' ' }],
    ['a blank workspace', { workspace: '\t' }],
    ['a since after until', { since: new Date('2026-06-02'), until: new Date('2026-06-01') }],
    ['a since at until, which is left out', { since: new Date('2026-06-01'), until: new Date('2026-06-01') }],
    ['a relative workspace', { workspace: 'ws/lone' }],
    ['an empty cache folder', { cacheDir: '' }],
    ['a regex flag that is no boolean', { regex: 'false' }],
    ['an unknown platform', { platform: 'bogus' }],
    ['roots that are no list', { roots: undefined }],
    // Two narrowings no text meets both of.
    ['a tool with kinds that hold no tool text', { tool: 'bash', kinds: ['user', 'assistant'] }],
  ])('%s is refused as RX_INVALID_INPUT: %j', async (_, odd) => {
    await expect(hitsOf('platypus', { ...options, ...(odd as Partial<SearchOptions>) })).rejects.toMatchObject({
      code: 'RX_INVALID_INPUT',
    });
  });
  it('with no query a file lists its touches: another kind is refused, the file kind is not', async () => {
    await expect(hitsOf('', { ...options, file: 'src/0.ts', kinds: ['command'] })).rejects.toMatchObject({
      code: 'RX_INVALID_INPUT',
      message: expect.stringContaining('give a query'),
    });
    const touches = await hitsOf('', { ...options, file: 'src/0.ts', kinds: ['file', 'command'] });
    expect(touches.length).toBeGreaterThan(0);
    expect(touches.every((hit) => hit.kind === 'file')).toBe(true);
    // A tool's kinds beside others: the tool narrows those.
    const bash = await hitsOf('grep', { ...options, tool: 'bash', kinds: ['user', 'command'] });
    expect(bash.length).toBeGreaterThan(0);
    expect(bash.every((hit) => hit.kind === 'command' && hit.tool === 'bash')).toBe(true);
  });
  it('with no query a file lists its touches: a pattern or messages around a hit are refused', async () => {
    await expect(hitsOf('', { ...options, file: 'src/0.ts', regex: true })).rejects.toMatchObject({
      code: 'RX_INVALID_INPUT',
      message: expect.stringContaining('regex needs a query'),
    });
    await expect(hitsOf('', { ...options, file: 'src/0.ts', around: 1 })).rejects.toMatchObject({
      code: 'RX_INVALID_INPUT',
      message: expect.stringContaining('around needs a query'),
    });
    // With a query, both are taken.
    expect((await hitsOf('parse.', { ...options, file: 'src/0.ts', regex: true, around: 1 })).length).toBeGreaterThan(
      0,
    );
  });
  it('a shell call whose command is no string is found by its arguments', async () => {
    const { options, stateRoot } = await machine();
    const call = { id: 'call_list', name: 'bash', arguments: JSON.stringify({ command: ['ls', 'platypus-den'] }) };
    await createSession({
      storeDir: storeOf(stateRoot),
      batches: [
        {
          operationId: 'list',
          events: [
            user('list the den'),
            complete({ role: 'assistant', id: id(), content: '', tool_calls: [call] }),
            complete({ role: 'tool', id: id(), tool_call_id: 'call_list', name: 'bash', content: 'nothing' }),
          ],
        },
      ],
    });
    for (const index of [true, false]) {
      const hits = await hitsOf('platypus-den', { ...options, index });
      expect(hits.map((hit) => [hit.kind, hit.tool])).toEqual([['tool-input', 'bash']]);
    }
  });
  it("any tool's arguments are found by what they say, not by how JSON escapes it", async () => {
    const { options, stateRoot } = await machine();
    // As a model may write them: a line break, quotes, a backslash, and a word in \u escapes.
    const written =
      '{"query":"near the\\nwombat burrow","note":"say \\"hi\\" to C:\\\\temp","lang":"\\u6570\\u636e\\u5e93","port":8080,"safe":true}';
    expect(JSON.parse(written)).toEqual({
      query: 'near the\nwombat burrow',
      note: 'say "hi" to C:\\temp',
      lang: '数据库',
      port: 8080,
      safe: true,
    });
    const call = { id: 'call_web', name: 'web_search', arguments: written };
    await createSession({
      storeDir: storeOf(stateRoot),
      batches: [
        {
          operationId: 'look-up',
          events: [
            user('look it up'),
            complete({ role: 'assistant', id: id(), content: '', tool_calls: [call] }),
            complete({ role: 'tool', id: id(), tool_call_id: 'call_web', name: 'web_search', content: 'no results' }),
          ],
        },
      ],
    });
    for (const index of [true, false])
      for (const query of ['"the wombat burrow"', '"say \\"hi\\""', 'C:\\temp', '数据库', '8080']) {
        const hits = await hitsOf(query, { ...options, index, kinds: ['tool-input'] });
        expect(
          hits.map((hit) => [hit.tool, hit.snippet]),
          `${query}, index ${index}`,
        ).toEqual([['web_search', 'near the wombat burrow say "hi" to C:\\temp 数据库 8080 true']]);
      }
    // A phrase never runs from one argument into the next, through the index or without it.
    for (const index of [true, false])
      expect(await hitsOf('"burrow say"', { ...options, index, kinds: ['tool-input'] }), `index ${index}`).toEqual([]);
    // The escapes themselves are no text of the call.
    for (const query of ['nwombat', 'u6570', 'C:\\\\temp', 'port'])
      expect(await hitsOf(query, { ...options, kinds: ['tool-input'] }), query).toEqual([]);
  });
  it('a pattern that does not compile is refused in the words of a library call, not of the command line', async () => {
    await expect(hitsOf('(unclosed', { ...options, regex: true })).rejects.toMatchObject({
      code: 'RX_INVALID_INPUT',
      message: expect.stringMatching(/^invalid regular expression `\(unclosed`: /),
    });
    // A backslash as typed, not doubled.
    await expect(hitsOf('\\8', { ...options, regex: true })).rejects.toMatchObject({
      message: expect.stringMatching(/^invalid regular expression `\\8`: /),
    });
  });
  it('a pattern that can match empty text is refused, not searched as finding nothing or less than it says', async () => {
    for (const pattern of ['^', '$', 'a*', '\\b', '(?:)', 'platypus|', 'x?'])
      await expect(hitsOf(pattern, { ...options, regex: true }), pattern).rejects.toMatchObject({
        code: 'RX_INVALID_INPUT',
        message: expect.stringContaining('can match empty text'),
      });
    // Patterns that need a character still find.
    for (const pattern of ['parse.', 'pars+er', 'parser|zzqqzz', '[p]arser'])
      expect((await hitsOf(pattern, { ...options, regex: true })).length, pattern).toBeGreaterThan(0);
  });
  it('a time past year 9999 or before year 0 bounds the hits as the time it is', async () => {
    const { options } = await machine();
    const all = (await hitsOf('parser', options)).map((hit) => hit.key);
    expect(all.length).toBeGreaterThan(0);
    // The latest and earliest times a Date holds, and the years either side of ISO's four digits.
    for (const far of [new Date(8.64e15), new Date('+010000-01-01T00:00:00Z')]) {
      expect((await hitsOf('parser', { ...options, until: far })).map((hit) => hit.key)).toEqual(all);
      expect(await hitsOf('parser', { ...options, since: far })).toEqual([]);
    }
    for (const early of [new Date(-8.64e15), new Date('-000001-12-31T00:00:00Z')]) {
      expect((await hitsOf('parser', { ...options, since: early })).map((hit) => hit.key)).toEqual(all);
      expect(await hitsOf('parser', { ...options, until: early })).toEqual([]);
    }
  });
  it('options that are no object are refused as RX_INVALID_INPUT', async () => {
    await expect(hitsOf('platypus', null as unknown as SearchOptions)).rejects.toMatchObject({
      code: 'RX_INVALID_INPUT',
    });
  });
  it('a workspace written with a trailing slash or a /./ is the folder its plain path names', async () => {
    const places = async (workspace: string) => placesOf(await hitsOf('parser', { ...options, workspace }));
    const plain = await places('/tmp/search-ws');
    expect(plain.length).toBeGreaterThan(0);
    for (const written of ['/tmp/search-ws/', '/tmp/./search-ws', '/tmp//search-ws/'])
      expect(await places(written), written).toEqual(plain);
  });
  it('a query that is no string is refused as RX_INVALID_INPUT', async () => {
    await expect(hitsOf(3 as unknown as string, options)).rejects.toMatchObject({ code: 'RX_INVALID_INPUT' });
  });

  it('kinds, tools, files and exit codes narrow the hits', async () => {
    const commands = await hitsOf('grep', { ...options, kinds: ['command'] });
    expect(commands.length).toBeGreaterThan(0);
    expect(
      commands.every((hit) => hit.kind === 'command' && hit.tool === 'bash' && typeof hit.exitCode === 'number'),
    ).toBe(true);
    // A shell call's arguments are its command line: every call's arguments (tool-input) take it in.
    const inputs = await hitsOf('grep', { ...options, kinds: ['tool-input'], tool: 'bash' });
    expect(placesOf(inputs)).toEqual(placesOf(commands.filter((hit) => hit.tool === 'bash')));
    // Its other arguments are its input, whatever the case the tool is named in.
    const described = await hitsOf('look through', { ...options, kinds: ['tool-input'], tool: 'Bash' });
    expect(described.length).toBeGreaterThan(0);
    expect(
      described.every((hit) => hit.tool === 'bash' && hit.kind === 'tool-input' && hit.snippet.startsWith('look')),
    ).toBe(true);
    const touched = await hitsOf('', { ...options, file: 'src/0.ts' });
    expect(touched.length).toBeGreaterThan(0);
    expect(touched.every((hit) => hit.kind === 'file' && hit.snippet === 'src/0.ts')).toBe(true);
    expect(await hitsOf('grep', { ...options, tool: 'no-such-tool' })).toEqual([]);
    // Any tool's arguments and result are searched, not only shell and file tools': by the strings they hold, as
    // theirs are (the key `query` is no text of the call).
    const searched = await hitsOf('parser', { ...options, tool: 'web_search', kinds: ['tool-input'] });
    expect(searched.length).toBeGreaterThan(0);
    expect(searched.every((hit) => hit.kind === 'tool-input' && hit.role === 'assistant')).toBe(true);
    expect(searched.some((hit) => hit.snippet.includes('{"query":'))).toBe(false);
    const results = await hitsOf('found', { ...options, tool: 'web_search', kinds: ['tool-output'] });
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((hit) => hit.role === 'tool' && hit.snippet.startsWith('found '))).toBe(true);
  });
});

describe('snippets', () => {
  it('show where a rare word meets a common one, not the first place of the common one', async () => {
    const { options, stateRoot } = await machine();
    const text = Array.from({ length: 200 }, (_, n) => `line ${String(n).padStart(5, '0')} of the log`).join('\n');
    await createSession({
      storeDir: storeOf(stateRoot),
      batches: [{ operationId: 'long', events: [user(text)] }],
    });
    for (const index of [true, false]) {
      const [hit] = await hitsOf('line 00171', { ...options, index });
      const shown = hit!.matches.map(({ start, end }) => hit!.snippet.slice(start, end));
      expect(shown).toContain('00171');
      expect(shown).toContain('line');
    }
  });
});

describe('the index stays true', () => {
  it('a session whose first typed message was retracted is called by the next, as ls calls it', async () => {
    const { options, storeDir } = await machine();
    const first = id();
    const session = await createSession({
      storeDir,
      batches: [
        {
          operationId: 'start',
          events: [
            complete({ role: 'user', id: first, origin: 'user', content: 'first prompt koala' }),
            complete({ role: 'user', id: id(), origin: 'user', content: 'second prompt koala' }),
          ],
        },
      ],
    });
    const titles = async (index: boolean) => [
      ...new Set((await hitsOf('koala', { ...options, index })).map((hit) => hit.title)),
    ];
    expect(await titles(true)).toEqual(['first prompt koala']);
    await appendBatches(session.dir, [
      { operationId: 'retract', events: [{ kind: 'message/retract', payload: { messageIds: [first] } }] },
    ]);
    const titled: (string | null)[] = [];
    for await (const listed of (await listSessions(options.roots, { platform: 'linux', threads: 0 })).sessions)
      if (listed.id === session.id) titled.push(listed.title);
    expect(titled).toEqual(['second prompt koala']);
    for (const index of [true, false]) expect(await titles(index), `index ${index}`).toEqual(['second prompt koala']);
  });
  it('an appended batch, a retracted and a rewritten message show in the next search; an edited message is never found in its old words', async () => {
    const { options, storeDir } = await machine();
    const session = await createSession({
      storeDir,
      batches: [{ operationId: 'start', events: [user('first words')] }],
    });
    expect(await hitsOf('pineapple', options)).toEqual([]);
    const said = id();
    await appendBatches(session.dir, [
      {
        operationId: 'add',
        events: [
          complete({
            role: 'user',
            id: said,
            origin: 'user',
            content: 'pineapple pizza',
            raw_content: 'pineapple pizza',
          }),
        ],
      },
    ]);
    expect((await hitsOf('pineapple', options)).map((hit) => hit.messageId)).toEqual([said]);
    await appendBatches(session.dir, [
      {
        operationId: 'edit',
        events: [
          {
            kind: 'message/upsert',
            payload: {
              message: { role: 'user', id: said, origin: 'user', content: 'mango salad', raw_content: 'mango salad' },
            },
          },
        ],
      },
    ]);
    expect(await hitsOf('pineapple', options)).toEqual([]);
    expect((await hitsOf('mango', options)).map((hit) => hit.messageId)).toEqual([said]);
    await appendBatches(session.dir, [
      { operationId: 'retract', events: [{ kind: 'message/retract', payload: { messageIds: [said] } }] },
    ]);
    expect(await hitsOf('mango', options)).toEqual([]);
    expect(placesOf(await hitsOf('words', options))).toEqual(
      placesOf(await hitsOf('words', { ...options, index: false })),
    );
  });

  it("finds a tool's result that answers no call, on the tool message that holds it, however the log was read", async () => {
    const { options, stateRoot } = await machine();
    const call = `call_lone_${id()}`;
    const [named, unknown, none] = [id(), id(), id()];
    const tool = (messageId: string, text: string, extra: Record<string, unknown>) =>
      complete({ role: 'tool', id: messageId, name: 'bash', content: text, ...extra });
    const session = await createSession({
      storeDir: storeOf(stateRoot),
      batches: [
        {
          operationId: 'lone-1',
          events: [
            user('run it'),
            complete({
              role: 'assistant',
              id: id(),
              content: '',
              tool_calls: [{ id: call, name: 'bash', arguments: JSON.stringify({ command: 'make' }) }],
            }),
            tool(named, 'wombat paired', { tool_call_id: call }),
            // A result for a call the session never made (a second one for a call, Reasonix refuses).
            tool(unknown, 'wombat stray', { tool_call_id: 'call_nowhere' }),
          ],
        },
      ],
    });
    /** The session's hits through the index and without it, each where `cat` prints its message. */
    const expectFound = async (step: string, expected: string[][]) => {
      const person: (string | null)[] = [];
      for await (const message of (await openSession(session.dir)).personView()) person.push(message.id ?? null);
      for (const index of [true, false]) {
        const hits = (await hitsOf('wombat', { ...options, index })).filter((hit) => hit.sessionId === session.id);
        const label = `${step}, index ${index}`;
        expect(hits.map((hit) => [hit.messageId!, hit.snippet]).sort(), label).toEqual([...expected].sort());
        for (const hit of hits) {
          expect(hit.kind, label).toBe('tool-output');
          expect(hit.index, label).toBe(person.indexOf(hit.messageId));
        }
      }
    };
    const written = [
      [named, 'wombat paired'],
      [unknown, 'wombat stray'],
    ];
    await expectFound('built', written);
    // A result that names no call, read since the index's cursor.
    await appendBatches(session.dir, [{ operationId: 'lone-2', events: [tool(none, 'wombat nameless', {})] }]);
    await expectFound('grown', [...written, [none, 'wombat nameless']]);
  });

  it("a tool's output is as old as the message that gave it, not as the call: --since finds it, the call not", async () => {
    const { options, stateRoot } = await machine();
    const [asked, answered] = [Date.parse('2026-05-02T10:00:00Z'), Date.parse('2026-05-02T12:00:00Z')];
    const [bash, read, resultId] = [`call_late_bash_${id()}`, `call_late_read_${id()}`, id()];
    const session = await createSession({
      storeDir: storeOf(stateRoot),
      batches: [
        {
          operationId: 'late',
          events: [
            complete({
              role: 'assistant',
              id: id(),
              content: '',
              createdAt: asked,
              tool_calls: [
                { id: bash, name: 'bash', arguments: JSON.stringify({ command: 'quokka-build' }) },
                { id: read, name: 'read_file', arguments: JSON.stringify({ path: 'quokka.txt' }) },
              ],
            }),
            complete({
              role: 'tool',
              id: resultId,
              tool_call_id: bash,
              name: 'bash',
              content: 'quokka done',
              createdAt: answered,
            }),
            complete({
              role: 'tool',
              id: id(),
              tool_call_id: read,
              name: 'read_file',
              content: 'quokka text',
              createdAt: answered,
            }),
          ],
        },
      ],
    });
    for (const index of [true, false]) {
      const found = async (since: string) =>
        (await hitsOf('quokka', { ...options, index, since: new Date(since) }))
          .filter((hit) => hit.sessionId === session.id)
          .map((hit) => `${hit.kind} ${hit.time}`)
          .sort();
      expect(await found('2026-05-02T09:00:00Z'), `index ${index}`).toEqual([
        'command 2026-05-02T10:00:00.000Z',
        'file 2026-05-02T10:00:00.000Z',
        'tool-input 2026-05-02T10:00:00.000Z',
        'tool-output 2026-05-02T12:00:00.000Z',
        'tool-output 2026-05-02T12:00:00.000Z',
      ]);
      expect(await found('2026-05-02T11:00:00Z'), `index ${index}`).toEqual([
        'tool-output 2026-05-02T12:00:00.000Z',
        'tool-output 2026-05-02T12:00:00.000Z',
      ]);
    }
  });

  it('finds what follows a NUL character in a text, the NUL shown as ␀', async () => {
    const { options, stateRoot } = await machine();
    const session = await createSession({
      storeDir: storeOf(stateRoot),
      batches: [{ operationId: 'nul', events: [user('binbefore\u0000binafter-word here')] }],
    });
    for (const index of [true, false]) {
      const hits = (await hitsOf('binafter', { ...options, index })).filter((hit) => hit.sessionId === session.id);
      expect(
        hits.map((hit) => hit.snippet),
        `index ${index}`,
      ).toEqual(['binbefore\u2400binafter-word here']);
      // A NUL typed in a query finds the NUL of the text.
      const typed = (await hitsOf('binbefore\u0000binafter', { ...options, index })).filter(
        (hit) => hit.sessionId === session.id,
      );
      expect(typed, `index ${index}`).toHaveLength(1);
    }
  });

  it('finds what a file tool wrote, read and answered, each output hit on the tool message that holds it', async () => {
    const { options, storeDir } = await machine();
    const [writeResult, readResult] = [id(), id()];
    const session = await createSession({
      storeDir,
      batches: [
        {
          operationId: 'q0',
          events: [
            user('plan it'),
            complete({
              role: 'assistant',
              id: id(),
              content: '',
              tool_calls: [
                {
                  id: 'call_w',
                  name: 'write_file',
                  arguments: '{"path":"plan.md","content":"Quokka plan:\\ncafé first"}',
                },
              ],
            }),
            complete({ role: 'tool', id: writeResult, tool_call_id: 'call_w', content: 'wrote the quokka plan' }),
            complete({
              role: 'assistant',
              id: id(),
              content: '',
              tool_calls: [{ id: 'call_r', name: 'read_file', arguments: '{"path":"plan.md"}' }],
            }),
            complete({ role: 'tool', id: readResult, tool_call_id: 'call_r', content: 'Quokka plan:\ncafé first' }),
          ],
        },
      ],
    });
    const person: { id: string | null; text: string }[] = [];
    for await (const message of (await openSession(session.dir)).personView())
      person.push({ id: message.id ?? null, text: JSON.stringify(message) });
    for (const index of [true, false]) {
      const hits = (await hitsOf('quokka', { ...options, index })).filter((hit) => hit.sessionId === session.id);
      expect(hits.map((hit) => `${hit.kind} ${hit.tool}`).sort(), `index ${index}`).toEqual([
        'tool-input write_file',
        'tool-output read_file',
        'tool-output write_file',
      ]);
      for (const hit of hits.filter((each) => each.kind === 'tool-output')) {
        expect([writeResult, readResult]).toContain(hit.messageId);
        expect(person[hit.index!]!.id).toBe(hit.messageId);
        expect(person[hit.index!]!.text.toLowerCase()).toContain('quokka');
      }
      // A phrase across a line of what was written.
      const phrase = (await hitsOf('"plan: café"', { ...options, index })).filter(
        (hit) => hit.sessionId === session.id,
      );
      expect(phrase.map((hit) => `${hit.kind} ${hit.tool}`).sort(), `index ${index}`).toEqual([
        'tool-input write_file',
        'tool-output read_file',
      ]);
    }
  });

  it('a hit is numbered where cat prints its message, however the session grew, was edited or retracted', async () => {
    const { options, storeDir } = await machine();
    const context = id();
    const first = user('kumquat first');
    const firstId = (first.payload as { message: { id: string } }).message.id;
    const session = await createSession({
      storeDir,
      batches: [
        {
          operationId: 'k0',
          events: [
            first,
            complete({ role: 'user', id: context, origin: 'host', content: 'kumquat context' }),
            answer('kumquat answer'),
          ],
        },
      ],
    });
    const upsert = (message: Record<string, unknown>): BatchToWrite['events'][number] => ({
      kind: 'message/upsert',
      payload: { message },
    });
    /** Every hit of the session, through the index and without it, sits where `cat` (the person view) prints its message. */
    const expectPlaced = async (step: string, count: number) => {
      const person: (string | null)[] = [];
      for await (const message of (await openSession(session.dir)).personView()) person.push(message.id ?? null);
      for (const index of [true, false]) {
        const hits = (await hitsOf('kumquat', { ...options, index })).filter((hit) => hit.sessionId === session.id);
        expect(hits, `${step}, index ${index}`).toHaveLength(count);
        expect(
          hits.map((hit) => [hit.messageId, hit.index]),
          `${step}, index ${index}`,
        ).toEqual(hits.map((hit) => [hit.messageId, person.indexOf(hit.messageId!)]));
      }
    };
    await expectPlaced('as written', 2);
    // Appended after a message no person sees.
    await appendBatches(session.dir, [
      {
        operationId: 'k1',
        events: [
          complete({ role: 'user', id: id(), origin: 'host', content: 'more context' }),
          user('kumquat again'),
          answer('kumquat later'),
        ],
      },
    ]);
    await expectPlaced('grown', 4);
    // Rewritten in place: the host's message becomes one a person typed, and the places after it move.
    await appendBatches(session.dir, [
      {
        operationId: 'k2',
        events: [
          upsert({ role: 'user', id: context, origin: 'user', content: 'kumquat typed', raw_content: 'kumquat typed' }),
        ],
      },
    ]);
    await expectPlaced('a hidden message shown', 5);
    await appendBatches(session.dir, [
      { operationId: 'k3', events: [upsert({ role: 'user', id: context, origin: 'host', content: 'kumquat hidden' })] },
    ]);
    await expectPlaced('a shown message hidden', 4);
    // Taken back: every place after it moves up.
    await appendBatches(session.dir, [
      { operationId: 'k4', events: [{ kind: 'message/retract', payload: { messageIds: [firstId] } }] },
    ]);
    await expectPlaced('retracted', 3);
  });

  it('a session gone is dropped; two searches at once give the same hits', async () => {
    const { options, storeDir } = await machine();
    const session = await createSession({
      storeDir,
      batches: [{ operationId: 'gone', events: [user('durian smell')] }],
    });
    const [a, b] = await Promise.all([hitsOf('durian', options), hitsOf('durian', options)]);
    expect(placesOf(a)).toEqual(placesOf(b));
    expect(a).toHaveLength(1);
    await cp(session.dir, `${session.dir}.moved`, { recursive: true });
    const { rm } = await import('node:fs/promises');
    await rm(session.dir, { recursive: true });
    expect(await hitsOf('durian', options)).toEqual([]);
  });

  it('two searches at once in one process, each with its own index, each give their hits', async () => {
    const [first, second] = [await machine(), await machine()];
    const alone = [await hitsOf('foxtrot', first.options), await hitsOf('kilo', second.options)];
    expect(alone.map((hits) => hits.length)).not.toContain(0);
    // Each index built anew, at once: neither search closes the other's connection.
    const again = [
      { ...first.options, cacheDir: join(first.stateRoot, 'cache-again') },
      { ...second.options, cacheDir: join(second.stateRoot, 'cache-again') },
    ];
    const together = await Promise.all([hitsOf('foxtrot', again[0]!), hitsOf('kilo', again[1]!)]);
    expect(together).toEqual(alone);
    // And the next searches of each are answered from its index as they were.
    expect([await hitsOf('foxtrot', again[0]!), await hitsOf('kilo', again[1]!)]).toEqual(alone);
  });

  it('a batch appended after the index that uses an operation id again is damage, as a whole read says', async () => {
    const { options, storeDir } = await machine();
    const session = await createSession({
      storeDir,
      batches: [
        { operationId: 'runtime:turn_a:1:0', events: [user('quince first')] },
        { operationId: 'turn-finalize:turn_a', events: [user('quince second')] },
      ],
    });
    expect((await hitsOf('quince', options)).map((hit) => hit.damage)).toEqual([null, null]);
    const log = join(session.dir, 'events.frames');
    const before = await readFile(log);
    for (const reused of ['runtime:turn_a:1:0', 'turn-finalize:turn_a']) {
      // Used again with other events: Reasonix refuses the batch (`conflicting operation`).
      await appendBatch(session.dir, [user('quince third')], { operationId: reused });
      for (const index of [true, false]) {
        const hits = await hitsOf('quince', { ...options, index });
        expect(hits.map((hit) => hit.snippet).sort()).toEqual(['quince first', 'quince second']);
        const said = `RX_DAMAGED_STORE: conflicting operation ${JSON.stringify(reused)}`;
        expect(hits.map((hit) => hit.damage)).toEqual([said, said]);
      }
      await writeFile(log, before);
      expect((await hitsOf('quince', options)).map((hit) => hit.damage)).toEqual([null, null]);
    }
  });

  it('a damaged session is searched up to its damage, and its hits say so', async () => {
    const { options, storeDir } = await machine();
    const session = await createSession({
      storeDir,
      batches: [
        { operationId: 'before', events: [user('papaya before')] },
        { operationId: 'after', events: [user('papaya after')] },
      ],
    });
    const log = join(session.dir, 'events.frames');
    const bytes = await readFile(log);
    // A byte of the last batch's frames flipped: its digest no longer verifies.
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 40) ^ 0xff, bytes.length - 40);
    await writeFile(log, bytes);
    for (const index of [true, false]) {
      const hits = await hitsOf('papaya', { ...options, index });
      expect(hits.map((hit) => hit.snippet)).toEqual(['papaya before']);
      expect(hits[0]!.damage).toMatch(/^RX_/);
    }
  });

  it('a search killed while it held the index leaves no lock the next one trips on', async () => {
    const { options } = await machine();
    const before = await hitsOf('foxtrot', options);
    expect(before.length).toBeGreaterThan(0);
    // What a killed search leaves: the index with SQLite's own lock beside it (the lock file itself the system
    // releases), here a copy this process never opened.
    const left = { ...options, cacheDir: `${options.cacheDir!}-left` };
    await cp(options.cacheDir!, left.cacheDir, { recursive: true });
    await mkdir(join(left.cacheDir, 'search-index.sqlite.lock'), { recursive: true });
    expect(await hitsOf('foxtrot', left)).toEqual(before);
  });

  it('a search after another process wrote the index reads what it wrote, and writes over none of it', async () => {
    const { options, stateRoot } = await machine();
    expect(await hitsOf('guava', options)).toEqual([]);
    const storeDir = storeOf(stateRoot);
    await createSession({ storeDir, batches: [{ operationId: 'other', events: [user('guava in another process')] }] });
    for (let n = 0; n < 4; n += 1)
      await createSession({
        storeDir,
        batches: Array.from({ length: 3 }, (_, t) => turn(500 + n * 10 + t, () => `lime ${'word '.repeat(50)}`)),
      });
    // Another process brings the index up to date (this one keeps its connection between searches).
    const other = await runNodeChild(
      [
        '--import',
        'tsx',
        '-e',
        `import(${JSON.stringify(join(repoRoot, 'src', 'index.ts'))}).then(async ({ search }) => {
          let hits = 0;
          for await (const hit of search('guava', ${JSON.stringify(options)})) hits += 1;
          process.stdout.write(String(hits));
        })`,
      ],
      { cwd: repoRoot },
    );
    expect(other.stderr).toBe('');
    expect(other.stdout).toBe('1');
    // This process writes too: a session the other never saw.
    await createSession({ storeDir, batches: [{ operationId: 'this', events: [user('guava in this process')] }] });
    const found = await hitsOf('guava', options);
    expect(found.map((hit) => hit.snippet).sort()).toEqual(['guava in another process', 'guava in this process']);
    expect(placesOf(await hitsOf('alpha', options))).toEqual(
      placesOf(await hitsOf('alpha', { ...options, index: false })),
    );
    // The other process and this one left the file whole (checked on a copy: this process keeps the index locked).
    await expectWholeIndex(join(options.cacheDir!, 'search-index.sqlite'), stateRoot);
  });

  it('an index file replaced during a search that wrote nothing is opened again by the next, not written over', async () => {
    const { options, stateRoot, storeDir } = await machine();
    // Another machine's index: the same texts, other paths.
    const other = await machine();
    await hitsOf('alpha', other.options);
    const foreign = join(stateRoot, 'foreign.sqlite');
    await cp(join(other.options.cacheDir!, 'search-index.sqlite'), foreign);
    // A damaged session: its notice is told midway through a search, while the index is held.
    const damaged = await createSession({ storeDir, batches: [{ operationId: 'cut', events: [user('cut words')] }] });
    const log = join(damaged.dir, 'events.frames');
    const bytes = await readFile(log);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 40) ^ 0xff, bytes.length - 40);
    await writeFile(log, bytes);
    await hitsOf('alpha', options);
    const index = join(options.cacheDir!, 'search-index.sqlite');
    // Written over in place by a hand that takes no lock, during a search that itself writes nothing.
    await hitsOf('alpha', { ...options, onNotWhole: () => copyFileSync(foreign, index) });
    await createSession({ storeDir, batches: [{ operationId: 'after', events: [user('kiwi after the swap')] }] });
    expect((await hitsOf('kiwi', options)).map((hit) => hit.snippet)).toEqual(['kiwi after the swap']);
    expect(placesOf(await hitsOf('alpha', options))).toEqual(
      placesOf(await hitsOf('alpha', { ...options, index: false })),
    );
    await expectWholeIndex(index, stateRoot);
  });

  it('an index file whose pages were written over is built again: the search answers as from the stores', async () => {
    const { options } = await machine();
    const expected = placesOf(await hitsOf('alpha', { ...options, index: false }));
    await hitsOf('alpha', options);
    const index = join(options.cacheDir!, 'search-index.sqlite');
    // Every page but the first (the header SQLite opens by) written over with bytes that are no page.
    const bytes = await readFile(index);
    bytes.fill(0xa5, 4096);
    await writeFile(index, bytes);
    expect(placesOf(await hitsOf('alpha', options))).toEqual(expected);
    expect(placesOf(await hitsOf('alpha', options))).toEqual(expected);
    // A few pages zeroed here and there: whichever statement meets them first, the index is built again.
    for (const at of [0.25, 0.5, 0.75]) {
      const whole = await readFile(index);
      whole.fill(
        0,
        Math.floor((whole.length * at) / 4096) * 4096,
        Math.floor((whole.length * at) / 4096) * 4096 + 2048,
      );
      await writeFile(index, whole);
      expect(placesOf(await hitsOf('alpha', options)), `zeroed at ${at}`).toEqual(expected);
    }
  });

  it('an index holding hits of a session it has no row for (a page lost, SQLite none the wiser) is built again', async () => {
    const { options } = await machine();
    const expected = placesOf(await hitsOf('alpha', { ...options, index: false }));
    await hitsOf('alpha', options);
    const sessions = SearchIndex.prototype.sessions;
    let lost = 0;
    // The first time the hits' sessions are read back, one of them is not there.
    vi.spyOn(SearchIndex.prototype, 'sessions').mockImplementation(function (this: SearchIndex, ...args) {
      const found = sessions.apply(this, args);
      if (args[0] === undefined || (lost += 1) > 1) return found;
      return new Map([...found].slice(1));
    });
    try {
      expect(placesOf(await hitsOf('alpha', options))).toEqual(expected);
      expect(lost).toBe(2);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('a search in the same process sees a session changed since the last, however little time passed', async () => {
    const { options, stateRoot } = await machine();
    // The listing is kept between searches only for files changed long enough ago: a clock some minutes ahead
    // makes every file old enough, so the second search checks the kept listing by its stats alone.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 600_000 });
    try {
      expect(await hitsOf('quince', options)).toEqual([]);
      const session = await createSession({
        storeDir: storeOf(stateRoot),
        batches: [{ operationId: 'first', events: [user('plum first')] }],
      });
      expect((await hitsOf('plum', options)).map((hit) => hit.snippet)).toEqual(['plum first']);
      await appendBatches(session.dir, [{ operationId: 'later', events: [user('quince later')] }]);
      expect((await hitsOf('quince', options)).map((hit) => hit.snippet)).toEqual(['quince later']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a program searching again and again sees each change at its next search, the files watched, not stated', async () => {
    const { options, stateRoot, storeDir, snippets } = await machineAheadOfItsFiles();
    // Searched three times unchanged, a process searches on a watch of the files (the first makes none, the second
    // checks them as it is made): each change below is made while the watch alone vouches for the files.
    const settled = async (query: string, expected: string[]) => {
      for (let run = 0; run < 3; run += 1) expect(await snippets(query)).toEqual(expected);
    };
    await settled('quince', []);
    const session = await createSession({
      storeDir,
      batches: [{ operationId: 'first', events: [user('plum first')] }],
    });
    expect(await snippets('plum')).toEqual(['plum first']);
    await settled('plum', ['plum first']);
    await appendBatches(session.dir, [{ operationId: 'later', events: [user('quince later')] }]);
    expect(await snippets('quince')).toEqual(['quince later']);
    await settled('quince', ['quince later']);
    // Rewritten in place, as another program might: a revision Reasonix does not open.
    const manifest = join(session.dir, 'manifest.json');
    const whole = placesOf(await hitsOf('quince', options));
    await writeFile(manifest, JSON.stringify({ ...JSON.parse(await readFile(manifest, 'utf8')), storageRevision: 9 }));
    const fromStores = placesOf(await hitsOf('quince', { ...options, index: false }));
    expect(fromStores).not.toEqual(whole);
    expect(placesOf(await hitsOf('quince', options))).toEqual(fromStores);
    await settled(
      'quince',
      (await hitsOf('quince', { ...options, index: false })).map((hit) => hit.snippet),
    );
    await rm(session.dir, { recursive: true });
    expect(await snippets('quince')).toEqual([]);
    await settled(
      'alpha',
      (await hitsOf('alpha', { ...options, index: false })).map((hit) => hit.snippet),
    );
    await rename(join(stateRoot, 'projects'), join(stateRoot, 'moved'));
    expect(await snippets('alpha')).toEqual(
      (await hitsOf('alpha', { ...options, index: false })).map((hit) => hit.snippet),
    );
    expect((await hitsOf('alpha', options)).filter((hit) => hit.path.startsWith(stateRoot))).toEqual([]);
  });

  it('searches at once in one process never vouch for each other: a change after them shows in the next', async () => {
    const { options, storeDir, snippets } = await machineAheadOfItsFiles();
    await Promise.all([snippets('quince'), snippets('quince'), snippets('quince')]);
    const session = await createSession({
      storeDir,
      batches: [{ operationId: 'first', events: [user('plum first')] }],
    });
    await Promise.all([snippets('plum'), snippets('plum')]);
    await snippets('plum');
    await Promise.all([snippets('plum'), snippets('plum')]);
    await appendBatches(session.dir, [{ operationId: 'later', events: [user('quince later')] }]);
    expect(await snippets('quince')).toEqual(['quince later']);
    // One that throws midway lets the watch go: what follows is checked by its stats again.
    const failing = hitsOf('plum', { ...options, session: 'no-such-session' }).catch((error: Error) => error.name);
    await Promise.all([snippets('plum'), failing]);
    await appendBatches(session.dir, [{ operationId: 'last', events: [user('quince last')] }]);
    expect((await snippets('quince')).sort()).toEqual(['quince last', 'quince later']);
  });

  it('the index folder and file are readable only by the user', async () => {
    const { options } = await machine();
    await hitsOf('alpha', options);
    const { stat } = await import('node:fs/promises');
    expect((await stat(options.cacheDir!)).mode & 0o777).toBe(0o700);
    expect((await stat(join(options.cacheDir!, 'search-index.sqlite'))).mode & 0o777).toBe(0o600);
    await mkdir(options.cacheDir!, { recursive: true });
  });
});

describe('the index takes out of itself exactly what it put in, whatever the text', () => {
  /** A store of its own and nothing else: a few texts, where a trigram left behind moves every score. */
  async function smallMachine(): Promise<{ options: SearchOptions; storeDir: string }> {
    const stateRoot = await tempDir('rxstore-search-small-');
    const roots = [{ kind: 'state' as const, path: stateRoot, lines: ['1.x' as const] }];
    return { storeDir: storeOf(stateRoot), options: { roots, platform: 'linux', cacheDir: join(stateRoot, 'cache') } };
  }
  /** Hits as a person compares them: where, what, and the score. */
  const shown = (hits: FoundHit[]) =>
    hits.map((hit) => `${hit.sessionId} ${hit.key} ${hit.kind} ${hit.score} ${hit.snippet}`);
  /** The hits through the index kept, without an index, and through a new one: all three alike. */
  async function alike(query: string, options: SearchOptions): Promise<FoundHit[]> {
    const indexed = await hitsOf(query, options);
    expect(shown(await hitsOf(query, { ...options, index: false })), `${query} without the index`).toEqual(
      shown(indexed),
    );
    const fresh = await tempDir('rxstore-fresh-index-');
    expect(shown(await hitsOf(query, { ...options, cacheDir: fresh })), `${query} through a new index`).toEqual(
      shown(indexed),
    );
    return indexed;
  }

  it('a text that starts with a byte order mark, taken out: the scores of the rest stay as a new index has them', async () => {
    const { options, storeDir } = await smallMachine();
    const marked = await createSession({
      storeDir,
      batches: [{ operationId: 'bom', events: [user('\ufeffhello from a file saved with a BOM'), answer('ok')] }],
    });
    await createSession({
      storeDir,
      batches: [{ operationId: 'plain', events: [user('hello there'), answer('hello again')] }],
    });
    const before = await alike('hello', options);
    await rm(marked.dir, { recursive: true });
    const after = await alike('hello', options);
    expect(after.length).toBeGreaterThan(0);
    expect(after.length).toBeLessThan(before.length);
  });

  it('a call whose arguments hold lone surrogates, rewritten: found by its new words only, the index whole', async () => {
    const { options, storeDir } = await smallMachine();
    const callId = id();
    const call = (description: string) =>
      complete({
        role: 'assistant',
        id: callId,
        content: '',
        tool_calls: [
          { id: 'call_lone', name: 'bash', arguments: `{"command":"echo hi","description":"${description}"}` },
        ],
      });
    const { dir } = await createSession({
      storeDir,
      batches: [
        {
          operationId: 'lone',
          events: [
            user('go'),
            call('x\\udc00\\udc00yz  zanzibar world'),
            complete({ role: 'tool', id: id(), tool_call_id: 'call_lone', name: 'bash', content: 'hi' }),
          ],
        },
      ],
    });
    expect((await alike('zanzibar', options)).length).toBeGreaterThan(0);
    await appendBatches(dir, [
      { operationId: 'rewrite', events: [{ kind: 'message/upsert', payload: call('quiet').payload }] },
    ]);
    expect((await alike('quiet', options)).length).toBeGreaterThan(0);
    expect(await alike('zanzibar', options)).toEqual([]);
    expect(await alike('zanz', options)).toEqual([]);
  });

  it('a word in a script whose case the index folds otherwise than JavaScript is found in the other case', async () => {
    const { options, storeDir } = await smallMachine();
    // Georgian's capitals (Mtavruli), Cherokee's capitals and Osage's, written as a person might paste them.
    const texts = ['ᲒᲐᲛᲐᲠᲯᲝᲑᲐ world', 'ᏣᎳᎩ syllabary', '𐒰𐓂𐒻 osage'];
    await createSession({
      storeDir,
      batches: [{ operationId: 'scripts', events: [...texts.map((text) => user(text)), answer('noted')] }],
    });
    for (const [query, found] of [
      ['გამარჯობა', texts[0]],
      ['"გამარჯობა world"', texts[0]],
      ['ꮳꮃꭹ', texts[1]],
      ['𐓘𐓪𐓣', texts[2]],
    ] as const)
      expect(
        (await alike(query, options)).map((hit) => hit.snippet),
        query,
      ).toEqual([found]);
  });

  it('every letter JavaScript takes for another with its case ignored is found by a query holding the other', async () => {
    const { options, storeDir } = await smallMachine();
    // Every pair of letters with a case that JavaScript's `iu` takes for one another, their small letters apart
    // (`ᲀ` and `в`, `ΐ` as U+1FD3 and U+0390, `ς` and `σ`), found from JavaScript itself.
    const cased: string[] = [];
    for (let code = 0; code <= 0x10ffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const letter = String.fromCodePoint(code);
      if (letter.toLowerCase() !== letter || letter.toUpperCase() !== letter) cased.push(letter);
    }
    const pairs = cased.flatMap((query) => {
      const same = new RegExp(`^${query}$`, 'iu');
      return cased
        .filter((text) => text.toLowerCase() !== query.toLowerCase() && same.test(text))
        .map((text) => [query, text] as const);
    });
    expect(pairs.length).toBeGreaterThan(50);
    // Each pair in a word of its own: `qxab` and a letter, then `zz`.
    const word = (at: number, letter: string) =>
      `qx${String.fromCharCode(97 + (at % 26))}${String.fromCharCode(97 + Math.floor(at / 26))}${letter}zz`;
    await createSession({
      storeDir,
      batches: [
        {
          operationId: 'letters',
          events: [...pairs.map(([, text], at) => user(word(at, text))), answer('noted')],
        },
      ],
    });
    const missed: string[] = [];
    for (const [at, [query, text]] of pairs.entries()) {
      const typed = word(at, query.toLowerCase());
      // A capital would make the search mind case: not what this asks.
      if (typed !== typed.toLowerCase()) continue;
      const found = (await hitsOf(typed, options)).map((hit) => hit.snippet);
      const scanned = (await hitsOf(typed, { ...options, regex: true })).map((hit) => hit.snippet);
      expect(scanned, typed).toEqual([word(at, text)]);
      if (found.join() !== scanned.join())
        missed.push(
          `${query} (U+${query.codePointAt(0)!.toString(16)}) for ${text} (U+${text.codePointAt(0)!.toString(16)})`,
        );
    }
    expect(missed).toEqual([]);
  });

  it('a phrase of hundreds of lines pasted from a log is found, through the index and without it', async () => {
    const { options, storeDir } = await smallMachine();
    const lines = Array.from(
      { length: 3000 },
      (_, at) => `2026-05-01T10:${String(at % 60).padStart(2, '0')} INFO request ${at} handled for user ${at % 97}`,
    );
    await createSession({
      storeDir,
      batches: [{ operationId: 'log', events: [user('check the log'), answer(lines.join('\n'))] }],
    });
    const hits = await alike(`"${lines.slice(1000, 1600).join('\n')}"`, options);
    expect(hits.map((hit) => hit.role)).toEqual(['assistant']);
  });
});
