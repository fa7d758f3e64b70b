/**
 * The `[storage] state = "<dir>"` entry of a Reasonix 2.x `config.toml` (docs/format.md §1.1), and nothing
 * else of the file: a `state` key in the `[storage]` table, or a dotted `storage.state` key at
 * the top level. Values are TOML basic ("…", with escapes) or literal ('…') strings. Anything else
 * is no entry, as Reasonix reads a malformed config as "nothing relocated".
 */
export function storageStateEntry(toml: string): string | undefined {
  let table: string | undefined = '';
  let found: string | undefined;
  for (const rawLine of toml.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[[')) {
      table = undefined; // an array of tables ([[providers]]) holds no storage entry
      continue;
    }
    if (line.startsWith('[')) {
      const header = parseKey(line.slice(1));
      table = header && /^\]\s*(#.*)?$/.test(header.rest) ? header.key : undefined;
      continue;
    }
    const entry = parseKey(line);
    if (table === undefined || !entry?.rest.startsWith('=')) continue;
    const key = table ? `${table}.${entry.key}` : entry.key;
    if (key === 'storage.state') found = stringValue(entry.rest.slice(1).trim());
  }
  return found;
}

const KEY_PART = /\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*/y;

/** A dotted key at the start of `text`, its parts unquoted and joined by `.`, and what follows it. */
function parseKey(text: string): { key: string; rest: string } | undefined {
  const parts: string[] = [];
  let at = 0;
  for (;;) {
    KEY_PART.lastIndex = at;
    const match = KEY_PART.exec(text);
    if (!match) return undefined;
    const part = match[1]!;
    parts.push(part.startsWith('"') ? (stringValue(part) ?? part) : part.startsWith("'") ? part.slice(1, -1) : part);
    at = KEY_PART.lastIndex;
    if (text[at] !== '.') break;
    at += 1;
  }
  return { key: parts.join('.'), rest: text.slice(at) };
}

const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };

/** A TOML basic or literal string, optionally followed by a comment; anything else → undefined. */
function stringValue(text: string): string | undefined {
  const literal = /^'([^']*)'\s*(#.*)?$/.exec(text);
  if (literal) return literal[1];
  const basic = /^"((?:[^"\\]|\\.)*)"\s*(#.*)?$/.exec(text);
  if (!basic) return undefined;
  return basic[1]!.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_escape, code: string) =>
    code.length > 1 ? String.fromCodePoint(Number.parseInt(code.slice(1), 16)) : (ESCAPES[code] ?? code),
  );
}
