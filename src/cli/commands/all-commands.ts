import type { Argv } from 'yargs';
import type { ExitCode } from '../exit-codes.js';
import { processOutput, type Output } from '../output.js';
import { catCommand } from './cat.js';
import { exportCommand } from './export.js';
import { inspectCommand } from './inspect.js';
import { lsCommand } from './ls.js';
import { migrateCommand } from './migrate.js';
import { relocateCommand } from './relocate.js';
import { repairCommand } from './repair.js';
import { salvageCommand } from './salvage.js';
import { searchCommand } from './search.js';
import { viewCommand } from './view.js';
import { whereCommand } from './where.js';

/** A command as yargs registers it, with the commands of its own a person may name after it. */
export interface CommandDefinition {
  /** Its name, then its positionals: `cat <session>`. */
  command: string;
  describe: string;
  builder: (yargs: Argv) => Argv<unknown>;
  /** Takes the arguments its own builder declares, as yargs parses them. */
  handler: (args: any) => void | Promise<void>;
  subcommands?: readonly string[];
}

/**
 * Every command rxstore runs, in the order `rxstore --help` lists them: `main.ts` registers each
 * with yargs, and the words a person may type where a command is named are theirs (`usage-words.ts`).
 */
export function allCommands(output: Output, setExit: (code: ExitCode) => void): CommandDefinition[] {
  // A progress bar only where a person watches standard error.
  const isTty = () => output === processOutput && process.stderr.isTTY === true;
  return [
    inspectCommand(output, setExit),
    lsCommand(output, setExit),
    whereCommand(output, setExit),
    searchCommand(output, setExit, isTty),
    catCommand(output, setExit),
    exportCommand(output, setExit),
    repairCommand(output, setExit),
    salvageCommand(output, setExit),
    viewCommand(output, setExit),
    relocateCommand(output, setExit),
    migrateCommand(output, setExit, isTty),
  ];
}
