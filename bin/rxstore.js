#!/usr/bin/env node
// The rxstore command: everything lives in the compiled CLI module.
import v8 from 'node:v8';

// A session's garbage is collected as it goes instead of piling up between collections, so the
// peak memory of reading a log stays near what is live (about 100 MiB for any size) — at some
// cost in speed, which a command-line run over a huge session can afford.
v8.setFlagsFromString('--optimize-for-size');
const { main } = await import('../dist/cli/main.js');

// A reader that stops early (`rxstore inspect … --messages | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
