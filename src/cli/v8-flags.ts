// What the flags are and why: src/codec/log-worker/reading-v8-flags.ts (a thread's start resets them there).
import { tuneV8ForReading } from '../codec/log-worker/reading-v8-flags.js';

export { tuneV8ForReading };

/**
 * Tunes V8 for reading (`tuneV8ForReading`) at the start of a command, but for `ls`, which tunes
 * before its first read instead: a listing the summary cache answers reads no log, and with the
 * young generation held at its starting size it collected garbage ten times as often, a seventh of
 * its time.
 */
export function tuneV8ForCommand(argv: readonly string[]): void {
  if (argv.find((arg) => !arg.startsWith('-')) !== 'ls') tuneV8ForReading();
}
