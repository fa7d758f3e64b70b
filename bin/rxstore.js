#!/usr/bin/env node
// The rxstore command: everything lives in the compiled CLI module.
import { main } from '../dist/cli/main.js';

// A reader that stops early (`rxstore inspect … --messages | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
