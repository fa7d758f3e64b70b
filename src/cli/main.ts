import yargs from 'yargs';
import { InvalidInputError, RxError } from '../codec/errors.js';
import { ZstdUnavailableError } from '../codec/zstd-unavailable-error.js';
import { catCommand } from './commands/cat.js';
import { exportCommand } from './commands/export.js';
import { inspectCommand } from './commands/inspect.js';
import { lsCommand } from './commands/ls.js';
import { whereCommand } from './commands/where.js';
import { migrateCommand } from './commands/migrate.js';
import { repairCommand } from './commands/repair.js';
import { salvageCommand } from './commands/salvage.js';
import { viewCommand } from './commands/view.js';
import { processOutput, type Output } from './output.js';
import { UsageError } from './usage-error.js';

/**
 * Runs the rxstore CLI with `argv` (without node and script) and returns the exit code:
 * 0 fine, 1 a store problem, 2 a usage error. Errors are printed as one line, never a stack.
 */
export async function main(argv: string[], output: Output = processOutput): Promise<number> {
  let exitCode = 0;
  const setExit = (code: number) => {
    exitCode = code;
  };
  try {
    await yargs(argv)
      .scriptName('rxstore')
      .usage('$0 <command> [options]\n\nRead, verify, project and write the session stores of the Reasonix coding agent.')
      .command(inspectCommand(output, setExit))
      .command(lsCommand(output, setExit))
      .command(whereCommand(output, setExit))
      .command(migrateCommand(output, setExit, () => output === processOutput && process.stderr.isTTY === true))
      .command(catCommand(output, setExit))
      .command(exportCommand(output, setExit))
      .command(repairCommand(output, setExit))
      .command(salvageCommand(output, setExit))
      .command(viewCommand(output, setExit))
      .demandCommand(1, 'Name a command.')
      .strict()
      .help()
      .version()
      .exitProcess(false)
      .fail((message, error) => {
        throw error ?? new UsageError(message);
      })
      .parseAsync();
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`rxstore: ${error.message}\n`);
      return 2;
    }
    if (error instanceof InvalidInputError) {
      output.err(`rxstore: ${error.code}: ${error.describe()}\n`);
      return 2;
    }
    if (error instanceof RxError) {
      output.err(`rxstore: ${error.code}: ${error.describe()}\n`);
      return 1;
    }
    if (error instanceof ZstdUnavailableError) {
      output.err(`rxstore: ${error.code}: ${error.message}\n`);
      return 1;
    }
    output.err(`rxstore: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  return exitCode;
}
