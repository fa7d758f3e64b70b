// Help as a new user reads it on a narrow terminal: nothing wider than the terminal, and every
// example still a comment above a command that pastes as it reads.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli-in-process.js';
import { hasScript, onTerminal } from '../support/terminal.js';

const HELPS = [
  ['inspect'],
  ['ls'],
  ['where'],
  ['cat'],
  ['export'],
  ['repair'],
  ['salvage'],
  ['view'],
  ['migrate', 'jsonl-to-v4'],
  [],
];

/** The examples of a help text: each one's comment and its command, continuation lines (` \`) joined as the shell joins them. */
function examplesOf(lines: readonly string[]): { comment: string; command: string }[] {
  const start = lines.indexOf('Examples:');
  const found: { comment: string; command: string }[] = [];
  let comment: string[] = [];
  let command = '';
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('  ')) break;
    const text = line.slice(2);
    if (text.startsWith('# ')) comment.push(text.slice(2));
    else if (text === '') continue;
    else {
      // A line ending in ` \` goes on in the next, as the shell reads it.
      const goesOn = text.endsWith(' \\');
      command += goesOn ? text.slice(0, -1) : text;
      if (!goesOn) {
        found.push({ comment: comment.join(' '), command });
        comment = [];
        command = '';
      }
    }
  }
  return found;
}

describe.skipIf(!hasScript)('help on a narrow terminal', () => {
  it.each([40, 60, 80])(
    'in %i columns: no line wider, each example a comment over a command that reads as the wide one',
    async (columns) => {
      for (const args of HELPS) {
        // In a pipe: the command line alone answers, so it runs in this process.
        const wide = (await runCliInProcess([...args, '--help'])).stdout.trimEnd().split('\n');
        const narrow = onTerminal(columns, [...args, '--help']);
        for (const line of narrow) expect(stringWidth(line), `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(columns);
        // In a pipe (100 columns) every example fits one line: the narrow ones are the same words, broken only between them.
        const examples = examplesOf(wide);
        expect(examples.length, args.join(' ')).toBeGreaterThan(0);
        expect(examplesOf(narrow), args.join(' ')).toEqual(examples);
      }
    },
  );
});
