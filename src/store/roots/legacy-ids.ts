import { createHash } from 'node:crypto';
import { goJson } from '../../codec/go-json/go-json.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** 16 bytes as Reasonix's 26-character Crockford base32 id (docs/format.md §8.3). */
export function base32Id(bytes: Uint8Array): string {
  // The 128 bits read from the end, five at a time: the first character holds the top three.
  let id = '';
  let value = 0;
  let bits = 0;
  let at = 15;
  for (let index = 0; index < 26; index += 1) {
    if (bits < 5 && at >= 0) {
      value |= bytes[at]! << bits;
      at -= 1;
      bits += 8;
    }
    id = CROCKFORD[value & 31]! + id;
    value >>>= 5;
    bits -= 5;
  }
  return id;
}

/**
 * The ids Reasonix gives legacy messages that have none (docs/format.md §8.3), one message at a time,
 * in order: a running SHA-256 over each message's Go JSON without `id` and `createdAt`, plus a newline;
 * message i's id is the base32 of SHA-256("reasonix-legacy-entry-v1" 0 branchId 0 i 0
 * running-digest-bytes). Messages that already have an id keep it but still feed the running digest. The digest is
 * over the message as Go writes it (`written`, where it differs: `goMessage`), and both forms get the id.
 */
export function legacyIdAssigner(
  branchId: string,
): (message: Record<string, unknown>, written?: Record<string, unknown>) => { message: Json; written: Json } {
  const running = createHash('sha256');
  let index = 0;
  return (message, written = message) => {
    const at = index;
    index += 1;
    const { id, createdAt: _createdAt, ...identity } = written;
    running.update(`${goJson(identity)}\n`);
    if (typeof id === 'string' && id !== '') return { message, written };
    const digest = createHash('sha256')
      .update('reasonix-legacy-entry-v1')
      .update(Buffer.from([0]))
      .update(branchId)
      .update(Buffer.from([0]))
      .update(String(at))
      .update(Buffer.from([0]))
      .update(running.copy().digest())
      .digest();
    const withId = ({ role, ...rest }: Json): Json => ({ role, id: base32Id(digest), ...rest });
    const ided = withId(message);
    return { message: ided, written: written === message ? ided : withId(written) };
  };
}

type Json = Record<string, unknown>;
