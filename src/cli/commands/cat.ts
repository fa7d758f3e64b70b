import type { Argv } from 'yargs';
import { openSession } from '../../store/open-session.js';
import type { Output } from '../output.js';

interface CatArgs {
  session: string;
  records: boolean;
}

export function catCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'cat <session>',
    describe: "Print a session's person's view, or its index records, as JSONL",
    builder: (yargs: Argv) =>
      yargs
        .positional('session', { type: 'string', demandOption: true, describe: 'a session directory or a .jsonl transcript' })
        .option('records', { type: 'boolean', default: false, describe: 'print indexer records: messages, shell commands, files touched' }),
    handler: async (args: CatArgs) => {
      const session = await openSession(args.session);
      const lines = args.records ? session.records() : session.personView();
      for await (const line of lines) output.out(`${JSON.stringify(line)}\n`);
      setExit(0);
    },
  };
}
