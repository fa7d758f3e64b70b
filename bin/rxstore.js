#!/usr/bin/env node
// The rxstore command: everything lives in the bundled CLI module (npm run build).
import module from 'node:module';

// Node 22.1 and later keep compiled code between runs, in the system's temporary folder (as tsc
// does): a tenth of a short command's time. Older Node has no such cache.
module.enableCompileCache?.();
const { tuneV8ForCommand } = await import('../dist/bundle/v8-flags.js');

// Before anything is read: what the flags are and why is said in src/codec/log-worker/reading-v8-flags.ts.
tuneV8ForCommand(process.argv.slice(2));
const { main, endQuietlyOnClosedPipe, setLogWorkers } = await import('../dist/bundle/cli.js');
// Logs are decoded on this thread: even with the flags above holding both heaps, a log worker raised a
// 1 GiB inspect's peak from 111 to 167 MiB (a 100 MiB one's from 85 to 118 MiB).
setLogWorkers(0);

// A reader that stops early (`rxstore inspect … --messages | head`) is not an error: see src/cli/output.ts.
endQuietlyOnClosedPipe();
process.exitCode = await main(process.argv.slice(2));
