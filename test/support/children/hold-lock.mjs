// A child process that holds a lock until its standard input closes, for tests of a run that
// meets a lock held by another process:
//   node hold-lock.mjs os <file>     the OS lock Reasonix takes (flock on Unix)
//   node hold-lock.mjs store <dir>   rxstore's own store lock (proper-lockfile on <dir>/.rxstore.lock)
// It prints "held" once the lock is taken.
import { openSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const [kind, target] = process.argv.slice(2);
let release;
if (kind === 'os') {
  const fd = openSync(target, 'a+');
  require('fs-ext-extra-prebuilt').flockSync(fd, 'exnb');
  release = async () => undefined;
} else {
  const lockfile = require('proper-lockfile');
  release = await lockfile.lock(target, { lockfilePath: `${target}/.rxstore.lock`, stale: 5_000 });
}
process.stdout.write('held\n');
process.stdin.resume();
process.stdin.on('end', async () => {
  await release();
  process.exit(0);
});
