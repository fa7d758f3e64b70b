import type { ListedStore } from '../store/roots/store-kind.js';

/** What a hit is of: a person's prompt, an answer, a call's arguments, its result, a shell command line, a path a turn touched. */
export type SearchKind = 'user' | 'assistant' | 'tool-input' | 'tool-output' | 'command' | 'file';
/** Every `SearchKind`, for checking what a caller names. */
export const SEARCH_KINDS: readonly SearchKind[] = [
  'user',
  'assistant',
  'tool-input',
  'tool-output',
  'command',
  'file',
];

/** Where a match lies in a hit's snippet: `[start, end)` in UTF-16 code units, as JavaScript strings count. */
export interface SearchMatch {
  /** The first code unit of the match. */
  start: number;
  /** The code unit after its last. */
  end: number;
}

/** One place a query matched: the session, the message (as `cat` and `view` name it), what kind of text, and a snippet. */
export interface SearchHit {
  /** The session's id, as `cat`, `view` and `where` take it. */
  sessionId: string;
  /** The session's title as its log names it; null when it has none. */
  title: string | null;
  /** The folder the session worked in; null when nothing names one. */
  workspace: string | null;
  /** The store of the copy searched (the one `ls` shows first). */
  store: ListedStore;
  /** The session directory or transcript the hit was read from. */
  path: string;
  messageId: string | null;
  /** The record's key: stable for the life of the session (see `IndexRecord.key`). */
  key: string;
  /** Who wrote the text: the person, the assistant (its answers and calls), or a tool (a call's result). */
  role: 'user' | 'assistant' | 'tool';
  /** What the text is: the `--kind` names. */
  kind: SearchKind;
  /** The tool of a call, its result, a command or a file; null for prompts and answers. */
  tool: string | null;
  /** A command's exit code, when its result recorded one. */
  exitCode: number | null;
  /** ISO time of the message. */
  time: string;
  /** Higher is better; hits come best first. */
  score: number;
  /** The matched text with some context, line breaks as spaces. */
  snippet: string;
  matches: SearchMatch[];
  /** The session was read up to damage (this says which): what follows it is not searched. Null when it read whole. */
  damage: string | null;
}
