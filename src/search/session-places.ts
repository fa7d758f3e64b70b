import type { Statement } from 'node-sqlite3-wasm';
import type { TranscriptWrites } from '../session/cursors/transcript-writes.js';
import type { Row } from './index-connection.js';

/**
 * The `places` table: each transcript message of a session at its position (`pos`), by id, whether a
 * person sees it, and its place among those a person sees (`place`: what `cat` numbers it, from 0;
 * null for a message a person does not see).
 */
// Looked up by id `indexed by` its index: without statistics SQLite would walk the session's rows by its primary key.
export const PLACES_SQL = `
create table if not exists places(path text not null, pos integer not null, message_id text, seen integer not null, place integer, primary key(path, pos)) without rowid;
create index if not exists places_by_id on places(path, message_id);
`;

/**
 * Keeps a session's places as the records pieces write its transcript (`TranscriptWrites`): hits are
 * numbered as `cat` numbers them without reading the session again. Where an id sits is asked of the
 * table (which holds what this update wrote too), so memory does not grow with the session's messages.
 */
export class SessionPlaces {
  private next: { pos: number; place: number } | undefined;

  constructor(
    private readonly statement: (sql: string) => Statement,
    private readonly path: string,
  ) {}

  /** The session is read again from the start: what was kept of it goes. */
  restart(): void {
    this.statement('delete from places where path = ?').run([this.path]);
    this.next = { pos: 0, place: 0 };
  }

  /** Applies a piece's writes, in order: an id the transcript holds is rewritten in place, any other is appended. */
  write(writes: TranscriptWrites): void {
    if (writes.whole) this.restart();
    for (const message of writes.entries) {
      const held = message.id === null ? undefined : this.find(message.id);
      if (!held) {
        this.append(message.id, message.seen);
        continue;
      }
      if (held.seen !== message.seen) this.reseen(held.pos, message.seen);
    }
  }

  private find(id: string): { pos: number; seen: boolean } | undefined {
    const row = this.statement(
      'select pos, seen from places indexed by places_by_id where path = ? and message_id = ?',
    ).get([this.path, id]) as Row | null;
    return row ? { pos: Number(row.pos), seen: Number(row.seen) === 1 } : undefined;
  }

  private append(id: string | null, seen: boolean): void {
    const next = this.nextPlaces();
    this.statement('insert into places(path, pos, message_id, seen, place) values (?, ?, ?, ?, ?)').run([
      this.path,
      next.pos,
      id,
      seen ? 1 : 0,
      seen ? next.place : null,
    ]);
    next.pos += 1;
    if (seen) next.place += 1;
  }

  /** A message rewritten in place that a person now sees, or no longer sees: the places after it move by one. */
  private reseen(pos: number, seen: boolean): void {
    // Asked before the places move, so that it is not counted twice.
    const next = this.nextPlaces();
    const before = this.statement(
      'select place from places where path = ? and pos < ? and place is not null order by pos desc limit 1',
    ).get([this.path, pos]) as Row | null;
    const place = before ? Number(before.place) + 1 : 0;
    this.statement('update places set seen = ?, place = ? where path = ? and pos = ?').run([
      seen ? 1 : 0,
      seen ? place : null,
      this.path,
      pos,
    ]);
    this.statement('update places set place = place + ? where path = ? and pos > ? and place is not null').run([
      seen ? 1 : -1,
      this.path,
      pos,
    ]);
    next.place += seen ? 1 : -1;
  }

  /** Where the next message appended goes: after the last kept (asked of the table once). */
  private nextPlaces(): { pos: number; place: number } {
    if (this.next) return this.next;
    const last = this.statement('select pos from places where path = ? order by pos desc limit 1').get([
      this.path,
    ]) as Row | null;
    const seen = this.statement(
      'select place from places where path = ? and place is not null order by pos desc limit 1',
    ).get([this.path]) as Row | null;
    this.next = { pos: last ? Number(last.pos) + 1 : 0, place: seen ? Number(seen.place) + 1 : 0 };
    return this.next;
  }
}

/** Where a message sits among those a person reads in its session (what `cat` numbers it), as the index keeps it; null when nowhere. */
export function placeOf(statement: (sql: string) => Statement, path: string, messageId: string): number | null {
  const row = statement('select place from places indexed by places_by_id where path = ? and message_id = ?').get([
    path,
    messageId,
  ]) as Row | null;
  return row && row.place !== null ? Number(row.place) : null;
}
