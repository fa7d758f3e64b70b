// What the flags are and why: src/codec/log-worker/reading-v8-flags.ts (a thread's start resets them there).
import v8 from 'node:v8';
import { tuneV8ForReading } from '../index.js';

/**
 * Tunes V8 for reading (`tuneV8ForReading`) at the start of a command, but for `ls` and `search`,
 * which tune before their first read instead: a listing the summary cache answers, or a search the
 * index answers, reads no log, and with the
 * young generation held at its starting size it collected garbage ten times as often, a seventh of
 * its time.
 */
export function tuneV8ForCommand(argv: readonly string[]): void {
  const command = argv.find((arg) => !arg.startsWith('-'));
  if (command !== 'ls' && command !== 'search') tuneV8ForReading();
  // A command runs one search: V8's optimising compile of SQLite's WASM (hundreds of milliseconds on a
  // busy machine, on background threads) costs it more than the faster code saves. A program that
  // searches again and again, through the library, keeps the optimised code.
  if (command === 'search') v8.setFlagsFromString('--liftoff-only');
}
