import { randomFillSync } from 'node:crypto';

/** Random bytes drawn for ids ahead of need: one call to the system's generator for 256 ids, not one each. */
const pool = Buffer.alloc(4096);
let drawn = pool.length;

/**
 * 16 random bytes as 32 hex characters: an event's id or a commit's, as Reasonix makes them. Drawn from a
 * pool (as `crypto.randomUUID` draws): a migration of 300,000 messages drew them one call each for most of
 * a second.
 */
export function randomHexId(): string {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  const id = pool.toString('hex', drawn, drawn + 16);
  drawn += 16;
  return id;
}
