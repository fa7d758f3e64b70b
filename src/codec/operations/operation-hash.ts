import { createHash } from 'node:crypto';
import { goJson } from '../go-json/go-json.js';

export interface HashedEvent {
  kind: string;
  optional?: boolean;
  /** The payload's compact JSON bytes (Go-escaped), the logical payload even when stored by ref. */
  payload?: Uint8Array;
}

/**
 * Reasonix's `operationHash` (docs/format.md §5.3): SHA-256 of
 * `{"sessionId":…,"turnId":…,"events":[{"kind":…,"optional":true?,"payload":<JSON>?}…]}`,
 * without event ids, as Reasonix's own writers hash before they assign ids.
 */
export function operationHash(sessionId: string, turnId: string | undefined, events: readonly HashedEvent[]): string {
  const hash = createHash('sha256');
  hash.update(`{"sessionId":${goJson(sessionId)},"turnId":${goJson(turnId ?? '')},"events":[`);
  events.forEach((event, index) => {
    hash.update(`${index > 0 ? ',' : ''}{"kind":${goJson(event.kind)}`);
    if (event.optional) hash.update(',"optional":true');
    if (event.payload && event.payload.length > 0) {
      hash.update(',"payload":');
      hash.update(event.payload);
    }
    hash.update('}');
  });
  hash.update(']}');
  return hash.digest('hex');
}
