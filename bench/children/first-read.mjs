// `first-read.mjs <what> <session dir>`: one thing an indexer does to a session it has never read,
// timed from its call: `record` (until recordsSince gives its first record), `follow` (until follow
// gives its first batch), `batches` (every batch of batchesSince from no cursor) or `readSince`
// (readSince from no cursor, gathered), `records` (every record of records()), `recordsSince`
// (every piece of recordsSince from no cursor, the cursor of each kept and the last stored as JSON,
// as indexSince's checkpoint and `cat --records --cursor` keep it) or `recordsSinceEach` (the same,
// every piece's cursor stored as JSON). Prints milliseconds; for the last two, then the bytes of
// the last cursor as JSON.
import { openLogSession } from '../../dist/bundle/index.js';

const [what, dir] = process.argv.slice(2);
const session = await openLogSession(dir);
const started = performance.now();
if (what === 'record') {
  for await (const piece of session.recordsSince()) if (piece.records.length > 0) break;
} else if (what === 'follow') {
  for await (const item of session.follow({ watch: false })) if (item) break;
} else if (what === 'batches') {
  let batches = 0;
  for await (const item of session.batchesSince()) batches += item ? 1 : 0;
} else if (what === 'readSince') {
  const { batches } = await session.readSince();
  if (batches.length === 0) throw new Error('nothing read');
} else if (what === 'records') {
  let records = 0;
  for await (const record of session.records()) records += record ? 1 : 0;
} else if (what === 'recordsSince' || what === 'recordsSinceEach') {
  let cursorBytes = 0;
  let cursor;
  for await (const piece of session.recordsSince(undefined, { cursorAtEnd: true })) {
    cursor = piece.cursor;
    if (what === 'recordsSinceEach') cursorBytes = JSON.stringify(cursor).length;
  }
  cursorBytes = JSON.stringify(cursor).length;
  process.stdout.write(`${(performance.now() - started).toFixed(3)} ${cursorBytes}\n`);
  process.exit(0);
} else throw new Error(`unknown: ${what}`);
process.stdout.write(`${(performance.now() - started).toFixed(3)}\n`);
