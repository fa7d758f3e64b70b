import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { exportedText, exportSession, type ExportFormat, type ExportView } from '../../migrate/export-session.js';
import { openSession } from '../../store/open-session.js';
import { epilogue } from '../help-text.js';
import type { Output } from '../output.js';
import type { RootArgs } from '../root-options.js';
import { resolveSessionArgument, withSessionArgument } from '../session-argument.js';

interface ExportArgs extends RootArgs {
  session: string;
  to: string;
  format: ExportFormat;
  view: ExportView;
}

/** `--to -`: standard output. */
const STDOUT = '-';

export function exportCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'export <session>',
    describe: 'Write a session out as a JSONL transcript (+ .jsonl.meta) or one JSON document',
    builder: (yargs: Argv) =>
      withSessionArgument(yargs)
        .option('to', {
          type: 'string',
          demandOption: true,
          // Takes the next word even when it is `-`: standard output.
          requiresArg: true,
          describe: 'the file to write (never overwritten), or - for standard output (JSONL: the transcript lines, without a .jsonl.meta)',
        })
        .option('format', { choices: ['jsonl', 'json'] as const, default: 'jsonl' as const, describe: 'a JSONL transcript Reasonix resumes, or one JSON document' })
        .option('view', { choices: ['canonical', 'person'] as const, default: 'canonical' as const, describe: 'every message, or what a person reads' })
        .example('$0 export 15350df4 --to session.jsonl', 'a transcript (+ session.jsonl.meta) that `reasonix --resume session.jsonl` opens')
        .example('$0 export 15350df4 --to - --format json --view person | jq .messages', 'one JSON document on standard output')
        .epilogue(epilogue('A session Reasonix would refuse is not exported (exit 1): rxstore salvage recovers what can be read.')),
    handler: async (args: ExportArgs) => {
      const session = await openSession(await resolveSessionArgument(args.session, args));
      const read = await session.read();
      if (args.to === STDOUT) {
        output.out(exportedText(read, { format: args.format, view: args.view, id: read.id }).document);
        setExit(0);
        return;
      }
      const report = await exportSession(read, { to: resolve(args.to), format: args.format, view: args.view });
      output.out(`exported ${report.messages} messages to ${report.files.join(' and ')}\n`);
      setExit(0);
    },
  };
}
