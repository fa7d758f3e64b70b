import type { seededRandom } from '../../test/support/seeded-random.js';

export type Rng = ReturnType<typeof seededRandom>;

// A small vocabulary, so generated text compresses about as well as real source and logs do
// (zstd -1 gains ~3× on it, as on TypeScript files) rather than like noise or like one repeated line.
const IDENTIFIERS = [
  'session',
  'batch',
  'frame',
  'offset',
  'digest',
  'payload',
  'message',
  'record',
  'reader',
  'writer',
  'config',
  'options',
  'result',
  'error',
  'value',
  'index',
  'count',
  'buffer',
  'stream',
  'chunk',
  'path',
  'file',
  'store',
  'root',
  'event',
  'kind',
  'sequence',
  'commit',
  'manifest',
  'content',
  'parse',
  'encode',
  'decode',
  'verify',
  'project',
  'resolve',
  'append',
  'flush',
  'handle',
  'request',
  'response',
  'client',
  'server',
  'token',
  'model',
  'tool',
  'call',
  'output',
  'status',
  'turn',
];
const KEYWORDS = ['const', 'let', 'return', 'if', 'for', 'await', 'export function', 'import', 'throw new', 'async'];
const PUNCTUATION = [' = ', '(', ');', ', ', '.', ' => ', ' { ', ' }', ': ', ' + ', ' !== ', '[0]'];
const LOG_LEVELS = ['INFO', 'DEBUG', 'WARN', 'INFO', 'INFO'];
const PROSE = [
  'the',
  'reader',
  'checks',
  'each',
  'batch',
  'before',
  'it',
  'is',
  'projected',
  'and',
  'a',
  'torn',
  'tail',
  'stays',
  'invisible',
  'so',
  'I',
  'will',
  'update',
  'test',
  'that',
  'covers',
  'this',
  'case',
  'now',
  'then',
  'run',
  'suite',
  'again',
  'to',
  'confirm',
  'fix',
  'works',
  'with',
  'real',
  'sessions',
  'file',
  'function',
];

function identifier(rng: Rng): string {
  const first = rng.pick(IDENTIFIERS);
  return rng.next() < 0.5 ? first : first + rng.pick(IDENTIFIERS).replace(/^./, (c) => c.toUpperCase());
}

function codeLine(rng: Rng): string {
  const indent = '  '.repeat(rng.int(4));
  const parts = [indent, rng.pick(KEYWORDS), ' ', identifier(rng)];
  const terms = 1 + rng.int(5);
  for (let i = 0; i < terms; i += 1) parts.push(rng.pick(PUNCTUATION), identifier(rng));
  if (rng.next() < 0.2) parts.push(` // ${rng.pick(PROSE)} ${rng.pick(PROSE)} ${rng.pick(PROSE)}`);
  return parts.join('');
}

/** A source file as Reasonix's read_file shows it: `<line>→<text>` lines, about `bytes` long. */
export function sourceListing(rng: Rng, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let n = 1; size < bytes; n += 1) {
    const line = `${n}→${codeLine(rng)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** Command output: timestamped log lines, about `bytes` long. */
export function commandOutput(rng: Rng, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let second = 0; size < bytes; second += 1) {
    const line = `2026-11-30T06:${String(10 + (second % 50)).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}Z ${rng.pick(LOG_LEVELS)} ${identifier(rng)}: ${prose(rng, 4 + rng.int(10))}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** Plain sentences of `words` words, for what the person and the model say. */
export function prose(rng: Rng, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i += 1) out.push(rng.pick(PROSE));
  return out.join(' ');
}

export function hex(rng: Rng, digits: number): string {
  let out = '';
  while (out.length < digits) out += rng.int(0x10000).toString(16).padStart(4, '0');
  return out.slice(0, digits);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A message id in Reasonix's ULID layout (docs/format.md §8.3): 48-bit milliseconds, then 80 random bits. */
export function messageId(rng: Rng, ms: number): string {
  let time = '';
  for (let i = 0, rest = ms; i < 10; i += 1, rest = Math.floor(rest / 32)) time = CROCKFORD[rest % 32] + time;
  let random = '';
  for (let i = 0; i < 16; i += 1) random += CROCKFORD[rng.int(32)];
  return time + random;
}
