import { isGoSpace } from '../../codec/go-json/go-space.js';
import { answeredCall, messageText, type Message } from './message.js';

/**
 * The keys of the records Reasonix 1.38.11 shows for a message, in order (internal/transcript/history.go):
 * none for a system message or one the host wrote as the user; one notice alone for a decision receipt, and
 * for a local-only message's paused or completed read; else the message's own record, when it shows one,
 * then a notice per decision receipt and one for an interrupted turn. A tool result's record
 * is keyed by its call (`tool:<call id>`), a message's by its id (`m:<id>`), and a record with neither —
 * a notice, or a message without an id — by its message's id and its place among the message's records
 * (`m:<id>:notice:<n>`): two messages without an id are both `m::notice:0`. Reasonix refuses to open a
 * transcript in which one key is met twice (`duplicate transcript record "<key>"`).
 */
export function transcriptRecordKeys(message: Message): string[] {
  const id = message.id ?? '';
  const notice = (at: number) => `m:${id}:notice:${at}`;
  const local = message.local_only === true;
  const fields = message as Record<string, unknown>;
  if (message.role === 'system') return [];
  if (isPresent(fields.decision_receipt)) return [notice(0)];
  // A read paused or completed is one notice of a local-only message, whatever else it holds.
  if (local && (isPresent(fields.read_pause) || isPresent(fields.read_completion))) return [notice(0)];
  // Reasonix's source shows a notice for a pending one; 1.38.11 shows none, pending or not, nor the message's record.
  if (local && fields.protocol_recovery !== undefined) return [];
  if (local && pending(fields.final_readiness_recovery)) return [notice(0)];
  if (message.role === 'user' && message.origin === 'host') return [];
  const keys: string[] = [];
  if (showsOwnRecord(message)) {
    if (message.role === 'tool' && !local && message.tool_call_id) keys.push(`tool:${message.tool_call_id}`);
    else keys.push(id === '' ? notice(0) : `m:${id}`);
  }
  const receipts = Array.isArray(fields.decision_receipts) ? fields.decision_receipts : [];
  for (const receipt of receipts) if (isPresent(receipt)) keys.push(notice(keys.length));
  if (local && isPresent(fields.interrupted_turn)) keys.push(notice(keys.length));
  return keys;
}

/**
 * The keys of a message that another message's can equal, in order: every key but `m:<id>` (ids are
 * distinct in a transcript), unless the id itself ends as a notice's key does.
 */
export function collidingRecordKeys(message: Message): readonly string[] {
  // Nearly every message: an id of its own and no notice, so only a result's call can be met again. Said at
  // once: the replay asks this of every message of every session it reads.
  if (plain(message)) {
    const call = answeredCall(message);
    return call === undefined ? NONE : [`tool:${call}`];
  }
  const own = message.id === undefined || NOTICE_END.test(message.id) ? undefined : `m:${message.id}`;
  return transcriptRecordKeys(message).filter((key) => key !== own);
}

/**
 * The message's own record key, `m:<id>`, when it shows one and `collidingRecordKeys` leaves it out (ids are
 * distinct but in a history a `history/replace` or `legacy/import` wrote, where Reasonix keeps every message of a
 * list, one id twice included: two that each show their record are a key twice, `duplicate transcript record
 * "m:<id>"`, measured with Reasonix 1.38.11).
 */
export function ownRecordKey(message: Message): string | undefined {
  if (message.id === undefined || message.id === '' || NOTICE_END.test(message.id)) return undefined;
  const own = `m:${message.id}`;
  // Said at once for nearly every message, as `collidingRecordKeys` says it.
  if (plain(message)) {
    const hostWritten = message.role === 'user' && message.origin === 'host';
    const result = message.role === 'tool' && Boolean(message.tool_call_id);
    return hostWritten || result ? undefined : own;
  }
  return transcriptRecordKeys(message).includes(own) ? own : undefined;
}

const NOTICE_END = /:notice:\d+$/;
const NONE: readonly string[] = [];
/** The fields that can give a message a notice or take its record away. */
const NOTICE_FIELDS = [
  'decision_receipt',
  'decision_receipts',
  'interrupted_turn',
  'protocol_recovery',
  'final_readiness_recovery',
] as const;

/** A message whose only record is its own, keyed by its id or its call: one with an id, not local-only, no notice. */
function plain(message: Message): boolean {
  if (message.id === undefined || message.id === '' || message.local_only === true) return false;
  if (message.role === 'system' || NOTICE_END.test(message.id)) return false;
  return NOTICE_FIELDS.every((field) => (message as Record<string, unknown>)[field] === undefined);
}

/** A local-only message shows a record only when it says something: text, reasoning or a call. */
function showsOwnRecord(message: Message): boolean {
  if (message.local_only !== true) return true;
  const text = message.role === 'user' ? messageText(message) : (message.content ?? '');
  return !isGoSpace(text + (message.reasoning_content ?? '')) || (message.tool_calls?.length ?? 0) > 0;
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function pending(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { pending?: unknown }).pending === true;
}
