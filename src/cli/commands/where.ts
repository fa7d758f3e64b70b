import type { Argv } from 'yargs';
import { locateSession, type SessionWhereabouts } from '../../store/locate-session.js';
import type { Output } from '../output.js';
import { UsageError } from '../usage-error.js';
import { machineRoots } from '../../store/machine-roots.js';
import { withRootOptions, type RootArgs } from '../root-options.js';

interface WhereArgs extends RootArgs {
  id: string;
  json: boolean;
}

export function whereCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'where <id>',
    describe: 'Where each copy of a session lives, and whether `reasonix --resume <id>` finds it from a folder',
    builder: (yargs: Argv) =>
      withRootOptions(yargs)
        .positional('id', { type: 'string', demandOption: true, describe: 'a session id or the start of one (a JSONL transcript name counts)' })
        .option('json', { type: 'boolean', default: false, describe: 'print a JSON array, one entry per matching session' })
        .example('$0 where 166cabf3', '')
        .example('$0 where 166cabf3 --cwd ~/src/app', 'would `reasonix --resume` find it from ~/src/app?')
        .epilogue('Exit 0: found (resumable or not). 1: no session matches.'),
    handler: async (args: WhereArgs) => {
      if (args.id.trim() === '') throw new UsageError('name a session id, or the start of one');
      const { inputs, roots } = await machineRoots(args);
      const located = await locateSession(roots.roots, args.id, {
        platform: inputs.platform,
        cwd: inputs.cwd,
        reasonixStateRoot: roots.reasonixStateRoot,
      });
      output.out(args.json ? `${JSON.stringify(located, null, 2)}\n` : located.map((session) => formatWhereabouts(session, inputs.cwd)).join('\n'));
      setExit(0);
    },
  };
}

function formatWhereabouts(session: SessionWhereabouts, cwd: string): string {
  const lines = [`${session.id}${session.title ? `  ${JSON.stringify(session.title)}` : ''}`];
  const workspace = session.workspace ? `${session.workspace} (from ${session.workspaceFrom})` : session.slug ? `unknown; it sits under slug ${session.slug}` : 'none (a global store)';
  lines.push(`  workspace  ${workspace}`);
  if (session.parent) lines.push(`  fork of    ${session.parent.id}  ${session.parent.path}`);
  lines.push('  copies');
  for (const copy of session.copies) {
    lines.push(`    ${copy.store}${copy.scope === 'global' && copy.store === 'sessions-v4' ? ' (global)' : ''}  ${copy.status}  ${copy.path}`);
    lines.push(`      \`reasonix --resume\` from ${cwd}: ${copy.resume.resumes ? 'opens it' : `no (${copy.resume.reason})`} — ${copy.resume.explanation}`);
  }
  const { resume } = session;
  if (resume.resumes) lines.push(`  resume from here: ${resume.command}`);
  else if (resume.command) lines.push(`  not from here: ${resume.explanation}`, `  to resume: ${resume.command}`);
  else lines.push(`  no command resumes it: ${resume.explanation}`);
  return `${lines.join('\n')}\n`;
}
