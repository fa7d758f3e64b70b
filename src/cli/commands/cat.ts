import type { Argv } from 'yargs';
import { openSession } from '../../store/open-session.js';
import { epilogue } from '../help-text.js';
import type { Output } from '../output.js';
import type { RootArgs } from '../root-options.js';
import { resolveSessionArgument, withSessionArgument } from '../session-argument.js';

interface CatArgs extends RootArgs {
  session: string;
  records: boolean;
}

export function catCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'cat <session>',
    describe: "Print a session's person's view, or its index records, as JSONL",
    builder: (yargs: Argv) =>
      withSessionArgument(yargs)
        .option('records', { type: 'boolean', default: false, describe: 'print indexer records: messages, shell commands, files touched' })
        .example('$0 cat 15350df4', 'what a person reads, one JSON message a line')
        .example('$0 cat 15350df4 --records | jq -r "select(.type == \\"command\\") | .command"', 'the shell commands the session ran')
        .example('$0 cat ~/.reasonix/projects/-home-me-app/sessions/old.jsonl', 'a JSONL transcript')
        .epilogue(epilogue()),
    handler: async (args: CatArgs) => {
      const session = await openSession(await resolveSessionArgument(args.session, args));
      const lines = args.records ? session.records() : session.personView();
      for await (const line of lines) output.out(`${JSON.stringify(line)}\n`);
      setExit(0);
    },
  };
}
