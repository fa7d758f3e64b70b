// One run of an indexer over every session of a state root, as the README's library section shows
// it: the listing with the summary cache, then the records of each log since its saved cursor
// (16 sessions at once, as the listing reads them).
// Prints `<sessions> <records>`; the cursors file is replaced when a cursor moved.
import { readFile, writeFile } from 'node:fs/promises';
import { listSessions, machineRoots, openLogSession, SummaryCache } from '../../dist/bundle/index.js';

const [stateRoot, cursorsFile, cacheDir] = process.argv.slice(2);
const cursors = JSON.parse(await readFile(cursorsFile, 'utf8').catch(() => '{}'));
const { inputs, roots } = await machineRoots({ stateHome: stateRoot });
const cache = await SummaryCache.open(cacheDir);
const { sessions } = await listSessions(roots.roots, { platform: inputs.platform, cache });
let listed = 0;
let records = 0;
let moved = false;
const paths = [];
for await (const session of sessions) {
  listed += 1;
  const copy = session.copies.find((each) => each.store === 'sessions-v4' || each.store === 'desktop-sessions-v5');
  if (copy) paths.push(copy.path);
}
const index = async (path) => {
  const opened = await openLogSession(path);
  for await (const piece of opened.recordsSince(cursors[path])) {
    records += piece.records.length;
    cursors[path] = piece.cursor;
    moved = true;
  }
};
let next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < paths.length) await index(paths[next++]);
  }),
);
await cache.save();
if (moved) await writeFile(cursorsFile, JSON.stringify(cursors));
process.stdout.write(`${listed} ${records}\n`);
