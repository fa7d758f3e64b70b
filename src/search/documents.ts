import type { IndexRecord, RecordChange } from '../session/replay/index-records.js';
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
  const base = { recordKey: record.key, messageId: record.messageId ?? null, time: record.time };
  const documents: SearchDocument[] = [];
  const add = (
    kind: SearchKind,
    role: SearchDocument['role'],
    tool: string | null,
    text: string,
    exitCode: number | null = null,
  ) => {
    if (text !== '') documents.push({ ...base, kind, role, tool, exitCode, text });
  };
  switch (record.type) {
    case 'message':
      add(record.role, record.role, null, record.text);
      break;
    case 'command':
      add('command', 'assistant', record.tool, record.command, record.exitCode ?? null);
      add('tool-output', 'tool', record.tool, record.output, record.exitCode ?? null);
      break;
    case 'file':
      add('file', 'assistant', record.tool, record.destination ? `${record.path}\n${record.destination}` : record.path);
      add(
        'tool-input',
        'assistant',
        record.tool,
        (record.edits ?? [])
          .flatMap((edit) => [edit.old, edit.new])
          .filter((text) => text !== '')
          .join('\n'),
      );
      add('tool-output', 'tool', record.tool, (record.removedLines ?? []).join('\n'));
      break;
    case 'call':
      add('tool-input', 'assistant', record.tool, record.arguments);
      add('tool-output', 'tool', record.tool, record.output, record.exitCode ?? null);
      break;
  }
  return documents;
}

/** About how many characters of text a change brings to the index: what a build holds before it writes them. */
export function textSizeOf(change: RecordChange): number {
  switch (change.type) {
    case 'removed':
      return 0;
    case 'message':
      return change.text.length;
    case 'command':
      return change.command.length + change.output.length;
    case 'file':
      return (
        change.path.length +
        (change.edits ?? []).reduce((sum, edit) => sum + edit.old.length + edit.new.length, 0) +
        (change.removedLines ?? []).reduce((sum, line) => sum + line.length, 0)
      );
    case 'call':
      return change.arguments.length + change.output.length;
  }
}
