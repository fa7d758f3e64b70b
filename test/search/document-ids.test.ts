// A document's id holds its session (the index counts a session's hits from the ids alone): each session's
// documents take ids in a span of its own, one no other session's ids are in, however sessions come and go.
import { Database } from 'node-sqlite3-wasm';
import { describe, expect, it } from 'vitest';
import { documentIdsOf, SESSION_SPAN } from '../../src/search/document-ids.js';

function docsTable() {
  const db = new Database(':memory:');
  db.exec('create table docs(id integer primary key, path text not null)');
  const query = (sql: string) => db.prepare(sql);
  const write = (path: string, count: number) => {
    const next = documentIdsOf(query, path);
    const ids = Array.from({ length: count }, () => next());
    for (const id of ids) db.run('insert into docs(id, path) values (?, ?)', [id, path]);
    return ids;
  };
  const spanOf = (id: number) => Math.floor(id / SESSION_SPAN);
  return { db, write, spanOf };
}

describe('document ids', () => {
  it('give each session a span of its own, and a session written again goes on in its span', () => {
    const { db, write, spanOf } = docsTable();
    const a = write('/a', 3);
    const b = write('/b', 2);
    expect(new Set(a.map(spanOf)).size).toBe(1);
    expect(new Set(b.map(spanOf)).size).toBe(1);
    expect(spanOf(a[0]!)).not.toBe(spanOf(b[0]!));
    const more = write('/a', 2);
    expect(more.map(spanOf)).toEqual([spanOf(a[0]!), spanOf(a[0]!)]);
    expect(more[0]).toBe(a[2]! + 1);
    // A session whose documents are all gone takes a span no session holds.
    db.run("delete from docs where path = '/b'");
    db.run("delete from docs where path = '/a'");
    const c = write('/c', 1);
    const a2 = write('/a', 1);
    expect(spanOf(c[0]!)).not.toBe(spanOf(a2[0]!));
    db.close();
  });

  it('past the last span exact in JavaScript, take the lowest span no session holds', () => {
    const { db, write, spanOf } = docsTable();
    const [first] = write('/first', 1);
    db.run('insert into docs(id, path) values (?, ?)', [(2 ** 21 - 1) * SESSION_SPAN, '/top']);
    const [next] = write('/next', 1);
    expect(spanOf(next!)).toBe(spanOf(first!) + 1);
    expect(Number.isSafeInteger(next)).toBe(true);
    db.close();
  });
});
