#!/usr/bin/env node
// The rxstore command: everything lives in the bundled CLI module (npm run build).
import module from 'node:module';
import { tuneV8ForCommand } from '../dist/bundle/v8-flags.js';

// Node 22.1 and later keep compiled code between runs, in the system's temporary folder (as tsc
// does): a tenth of a short command's time. Older Node has no such cache.
module.enableCompileCache?.();

// Before anything is read: what the flags are and why is said in src/cli/v8-flags.ts.
tuneV8ForCommand(process.argv.slice(2));
// A long log is decoded on a worker thread while this one replays it (the library's default): the
// flags above hold both heaps, as a thread's start no longer undoes them (src/codec/log-worker/start-thread.ts).
const { main, endQuietlyOnClosedPipe } = await import('../dist/bundle/cli.js');

// A reader that stops early (`rxstore inspect … --messages | head`) is not an error: see src/cli/output.ts.
endQuietlyOnClosedPipe();
process.exitCode = await main(process.argv.slice(2));
