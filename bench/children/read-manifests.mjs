// The least a listing of a state root must do: start Node, find every session directory and read
// and parse its manifest.json. Prints how many it read.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const projects = join(process.argv[2], 'projects');
let read = 0;
for (const slug of await readdir(projects)) {
  const store = join(projects, slug, 'sessions-v4');
  const ids = await readdir(store).catch(() => []);
  await Promise.all(
    ids
      .filter((id) => !id.startsWith('.'))
      .map(async (id) => {
        JSON.parse(await readFile(join(store, id, 'manifest.json'), 'utf8'));
        read += 1;
      }),
  );
}
process.stdout.write(`${read}\n`);
