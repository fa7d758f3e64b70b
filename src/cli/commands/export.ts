import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { exportSession, type ExportFormat, type ExportView } from '../../migrate/export-session.js';
import { openSession } from '../../store/open-session.js';
import type { Output } from '../output.js';

interface ExportArgs {
  session: string;
  to: string;
  format: ExportFormat;
  view: ExportView;
}

export function exportCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'export <session>',
    describe: 'Write a session out as a JSONL transcript (+ .jsonl.meta) or one JSON document',
    builder: (yargs: Argv) =>
      yargs
        .positional('session', { type: 'string', demandOption: true, describe: 'a session directory' })
        .option('to', { type: 'string', demandOption: true, describe: 'the file to write (never overwritten)' })
        .option('format', { choices: ['jsonl', 'json'] as const, default: 'jsonl' as const })
        .option('view', { choices: ['canonical', 'person'] as const, default: 'canonical' as const, describe: 'every message, or what a person reads' }),
    handler: async (args: ExportArgs) => {
      const session = await openSession(args.session);
      const read = await session.read();
      const report = await exportSession(read, { to: resolve(args.to), format: args.format, view: args.view });
      output.out(`exported ${report.messages} messages to ${report.files.join(' and ')}\n`);
      setExit(0);
    },
  };
}
