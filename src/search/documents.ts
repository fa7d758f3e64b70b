import type { IndexRecord, RecordChange } from '../session/replay/index-records.js';
import { parseJsonObject } from '../session/replay/message.js';
import type { SearchKind } from './search-hit.js';

/** One searchable text of a record: a record gives one to three (a command's line and its output, an edit's path and its spans, a call's arguments and result). */
export interface SearchDocument {
  /** The record's key: a later record with it replaces these documents, a removal takes them away. */
  recordKey: string;
  kind: SearchKind;
  role: 'user' | 'assistant' | 'tool';
  tool: string | null;
  exitCode: number | null;
  messageId: string | null;
  time: string;
  text: string;
}

/** The documents a record is searched by; empty texts are left out. */
export function documentsOf(record: IndexRecord): SearchDocument[] {
  const base = { recordKey: record.key };
  const documents: SearchDocument[] = [];
  const add = (
    kind: SearchKind,
    role: SearchDocument['role'],
    tool: string | null,
    text: string,
    exitCode: number | null = null,
  ) => {
    // A call's output is the tool message's: a hit in it points there (or nowhere, when that message has no id),
    // and is as old as that message.
    const fromResult = role === 'tool' && record.type !== 'message';
    const messageId = fromResult ? record.resultMessageId : record.messageId;
    const time = (fromResult ? record.resultTime : undefined) ?? record.time;
    if (text === '') return;
    documents.push({ ...base, time, messageId: messageId ?? null, kind, role, tool, exitCode, text: asSearched(text) });
  };
  switch (record.type) {
    case 'message':
      add(record.role, record.role, null, record.text);
      break;
    case 'command':
      add('command', 'assistant', record.tool, record.command, record.exitCode ?? null);
      // The rest of its arguments (what the command is for, a folder to run it in), and all of them when the
      // command line is no string: the command line itself is the `command` text.
      add('tool-input', 'assistant', record.tool, argumentTexts(record.arguments, record.command));
      add('tool-output', 'tool', record.tool, record.output, record.exitCode ?? null);
      break;
    case 'file':
      add('file', 'assistant', record.tool, record.destination ? `${record.path}\n${record.destination}` : record.path);
      add('tool-input', 'assistant', record.tool, argumentTexts(record.arguments));
      add('tool-output', 'tool', record.tool, record.output);
      break;
    case 'call':
      add('tool-input', 'assistant', record.tool, argumentTexts(record.arguments));
      add('tool-output', 'tool', record.tool, record.output, record.exitCode ?? null);
      break;
    case 'result':
      add('tool-output', 'tool', record.tool || null, record.output, record.exitCode ?? null);
      break;
  }
  return documents;
}

/**
 * What stands between two arguments of a call in its text: the record separator, which no phrase crosses (it is
 * no white space, to the index or to a pattern's `\s`), so `"burrow say"` is not found where one argument ends
 * in `burrow` and the next starts with `say`; a snippet shows it as a space (`snippetOf`).
 */
export const ARGUMENT_BREAK = '\u001e';

/**
 * A tool's arguments as text, any tool's: each string, number and boolean in them (what a write wrote, an edit's
 * old and new spans, the path, a web search's query, a port), apart (`ARGUMENT_BREAK`), their keys left out, as
 * the model meant them, unescaped: a phrase across a line of what was written is found, and so is `C:\temp` or a
 * word the model wrote as `\u` escapes, as it reads. Arguments that are not a JSON object are their text as it
 * is. An argument whose value is `leftOut` (a command line, which is a text of its own) is left out.
 */
function argumentTexts(json: string, leftOut?: string): string {
  const args = parseJsonObject(json);
  if (!args) return leftOut === json ? '' : json;
  const texts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value !== '') texts.push(value);
    } else if (typeof value === 'number' || typeof value === 'boolean') texts.push(String(value));
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(collect);
  };
  for (const value of Object.values(args)) if (leftOut === undefined || value !== leftOut) collect(value);
  return texts.join(ARGUMENT_BREAK);
}

/** About how many characters of text a change brings to the index: what a build holds before it writes them. */
export function textSizeOf(change: RecordChange): number {
  switch (change.type) {
    case 'removed':
      return 0;
    case 'message':
      return change.text.length;
    case 'command':
      return change.command.length + change.arguments.length + change.output.length;
    case 'file':
      return change.path.length + change.arguments.length + change.output.length;
    case 'call':
      return change.arguments.length + change.output.length;
    case 'result':
      return change.output.length;
  }
}

/** What stands for a NUL character in a searched text (and in a query): `␀`, as a person would write it. */
export const NUL_STAND_IN = '\u2400';

/** A UTF-16 surrogate without its pair: JSON's `\udc00` parses to one, and UTF-8 has no bytes for it. */
const LONE_SURROGATE = /\p{Cs}/gu;

/**
 * `text` as the index keeps it, and a query is searched: each NUL character as `NUL_STAND_IN` (the index engine
 * takes a text up to its first NUL, and a command's binary output holds some), and each lone surrogate as U+FFFD,
 * as UTF-8 writes it (SQLite's text is UTF-8: a surrogate was written short, and a text taken out of the index
 * then differed from the one put in).
 */
export function asSearched(text: string): string {
  const withoutNul = text.includes('\0') ? text.replaceAll('\0', NUL_STAND_IN) : text;
  return withoutNul.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * Letters JavaScript's `iu` takes for another letter that FTS5 does not fold them into: the old forms of
 * Cyrillic letters (U+1C80 to U+1C87: `ᲀ` is a `в`), and `ΐ` and `ΰ` as U+1FD3 and U+1FE3 (U+0390 and U+03B0 to
 * JavaScript). The index holds each as that other letter, and a phrase narrows by it so written (`asIndexed`).
 */
const INDEXED_AS: Readonly<Record<string, string>> = {
  '\u1c80': '\u0432',
  '\u1c81': '\u0434',
  '\u1c82': '\u043e',
  '\u1c83': '\u0441',
  '\u1c84': '\u0442',
  '\u1c85': '\u0442',
  '\u1c86': '\u044a',
  '\u1c87': '\u0463',
  '\u1fd3': '\u0390',
  '\u1fe3': '\u03b0',
};
const INDEXED_OTHERWISE = /[\u1c80-\u1c87\u1fd3\u1fe3]/g;

/** `text` with the letters of `INDEXED_AS` as the index holds them: a text and a phrase that narrows the index alike. */
export function asIndexed(text: string): string {
  return text.replace(INDEXED_OTHERWISE, (letter) => INDEXED_AS[letter]!);
}

/**
 * A text as the trigram index holds it: each run of white space one space, as a query's phrase joins its words,
 * and the letters of `INDEXED_AS` as JavaScript takes them. A phrase then narrows whole, its words apart by a
 * line break or two spaces found as by one, `вот` in `ᲀот`: the index alone decides it, as it decides a word.
 */
export function indexedText(text: string): string {
  // Without white space at either end: what a text is read back as may have lost a byte order mark at its start.
  return asIndexed(text.replace(/\s+/g, ' ').trim());
}
