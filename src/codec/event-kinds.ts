/**
 * The event kinds Reasonix 1.38.11 accepts without `optional: true` (docs/format.md §7.1). Any other
 * kind in a batch makes the whole session "unsupported": it was written by a newer Reasonix.
 * `session/permission-preset` is not one of them: 1.38.11 refuses a session holding it unless
 * the event is optional (measured on the binary).
 */
export const KNOWN_EVENT_KINDS: ReadonlySet<string> = new Set([
  'message/complete',
  'message/upsert',
  'message/retract',
  'assistant/attempt',
  'tool/call',
  'tool/start',
  'tool/result',
  'turn/start',
  'turn/end',
  'step/start',
  'step/end',
  'todo/write',
  'interaction/created',
  'interaction/resolved',
  'plan/state',
  'goal/state',
  'session/title',
  'session/config',
  'model/context-replace',
  'history/replace',
  'compaction',
  'runtime/recovery',
  'legacy/import',
  'diagnostic',
]);
