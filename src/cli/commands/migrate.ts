import { lstat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { RxError } from '../../codec/errors.js';
import { migrateJsonlToV4, type MigrationReport } from '../../migrate/jsonl-to-v4.js';
import { unmigratedTranscripts } from '../../migrate/unmigrated-transcripts.js';
import { listTranscripts } from '../../store/jsonl-names.js';
import { machineRoots } from '../../store/machine-roots.js';
import { withRootOptions, type RootArgs } from '../root-options.js';
import type { Output } from '../output.js';
import { Progress } from '../progress.js';
import { UsageError } from '../usage-error.js';

interface MigrateArgs extends RootArgs {
  path?: string;
  all: boolean;
  to?: string;
  dryRun: boolean;
  json: boolean;
  concurrency: number;
}

type Outcome = { source: string; report?: MigrationReport; error?: { code: string; message: string } };

export function migrateCommand(output: Output, setExit: (code: number) => void, isTty: () => boolean) {
  return {
    command: 'migrate',
    describe: 'Migrate sessions between stores',
    builder: (yargs: Argv) =>
      yargs.command({
        command: 'jsonl-to-v4 [path]',
        describe: 'Migrate JSONL transcripts into sessions-v4, as Reasonix would on resume; the sources are only read',
        builder: (sub: Argv) =>
          withRootOptions(sub)
            .positional('path', { type: 'string', describe: 'a .jsonl transcript, or a directory of them' })
            .option('all', { type: 'boolean', default: false, describe: 'every transcript under the Reasonix roots that has no sessions-v4 twin' })
            .option('to', { type: 'string', describe: 'the sessions-v4 directory to publish into (default: the transcript’s workspace store)' })
            .option('dry-run', { type: 'boolean', default: false, describe: 'write nothing; say what would be done' })
            .option('json', { type: 'boolean', default: false, describe: 'print a JSON report' })
            .option('concurrency', { type: 'number', default: 4, describe: 'transcripts migrated at once' }),
        handler: async (args: MigrateArgs) => {
          const transcripts = await transcriptsFor(args);
          const outcomes = await migrateAll(transcripts, args, output, isTty());
          const failed = outcomes.filter((outcome) => outcome.error);
          if (args.json) output.out(`${JSON.stringify(outcomes, null, 2)}\n`);
          else {
            const count = (action: string) => outcomes.filter((outcome) => outcome.report?.action === action).length;
            output.out(
              `${transcripts.length} transcript(s): ${count('migrated')} migrated, ${count('would-migrate')} would be migrated, ${count('exists')} already migrated, ${failed.length} failed\n`,
            );
          }
          setExit(failed.length > 0 ? 1 : 0);
        },
      }).demandCommand(1, 'Name a migration: jsonl-to-v4.'),
    handler: () => undefined,
  };
}

async function transcriptsFor(args: MigrateArgs): Promise<string[]> {
  if (args.all === (args.path !== undefined)) throw new UsageError('name a transcript or a directory, or give --all');
  if (!args.all) return transcriptsAt(resolve(args.path!));
  const { inputs, roots } = await machineRoots(args);
  return unmigratedTranscripts(roots.roots, inputs.platform);
}

async function transcriptsAt(path: string): Promise<string[]> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats) throw new UsageError(`${path}: no such file or directory`);
  if (stats.isDirectory()) {
    const found = await listTranscripts(path);
    if (found.length === 0) throw new UsageError(`${path}: no JSONL transcripts in this directory`);
    return found;
  }
  if (!path.endsWith('.jsonl')) throw new UsageError(`${path}: not a .jsonl transcript`);
  return [path];
}

/** Migrates every transcript, a few at once; one failure never stops the rest. */
async function migrateAll(transcripts: string[], args: MigrateArgs, output: Output, tty: boolean): Promise<Outcome[]> {
  const progress = new Progress(output, transcripts.length, tty && !args.json);
  const outcomes: Outcome[] = new Array(transcripts.length);
  let next = 0;
  const worker = async () => {
    while (next < transcripts.length) {
      const index = next++;
      const source = transcripts[index]!;
      try {
        const report = await migrateJsonlToV4(source, { to: args.to, dryRun: args.dryRun });
        outcomes[index] = { source, report };
        const notes = report.warnings.map((warning) => `\n    warning: ${warning}`).join('');
        if (!args.json) progress.step(`${report.action.padEnd(13)} ${source} -> ${report.targetDir}${notes}`);
      } catch (error) {
        if (!(error instanceof RxError)) throw error;
        outcomes[index] = { source, error: { code: error.code, message: error.message } };
        if (!args.json) progress.step(`failed        ${source}: ${error.code}: ${error.message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(args.concurrency, transcripts.length)) }, worker));
  return outcomes;
}
