import { EXIT_CODES_HELP } from './exit-codes.js';

/** A command's help epilogue: what it needs saying, then the exit codes every command shares. */
export function epilogue(...notes: string[]): string {
  return [...notes, EXIT_CODES_HELP].join('\n\n');
}
