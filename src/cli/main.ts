import yargs from 'yargs';

/** Runs the rxstore CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  await yargs(argv)
    .scriptName('rxstore')
    .usage('$0 <command> [options]\n\nRead, verify, project and write the session stores of the Reasonix coding agent.')
    .demandCommand(1, 'Name a command.')
    .strict()
    .help()
    .version()
    .fail((message, error) => {
      process.stderr.write(`rxstore: ${message ?? error?.message}\n`);
      exitCode = 2;
    })
    .parseAsync();
  return exitCode;
}
