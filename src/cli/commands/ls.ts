import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { ListedSession } from '../../store/describe-conversation.js';
import { listSessions } from '../../store/list-sessions.js';
import { machineRoots } from '../../store/machine-roots.js';
import { withRootOptions, type RootArgs } from '../root-options.js';
import { STORES_NEWEST_FIRST, type ListedStore } from '../../store/store-kind.js';
import type { Output } from '../output.js';

interface LsArgs extends RootArgs {
  json: boolean;
  verify: boolean;
  workspace?: string;
  store?: ListedStore[];
}

export function lsCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'ls',
    describe: 'List every Reasonix session on this machine, each conversation once, newest first',
    builder: (yargs: Argv) =>
      withRootOptions(yargs)
        .option('json', { type: 'boolean', default: false, describe: 'print a JSON array' })
        .option('verify', { type: 'boolean', default: false, describe: 'verify every session fully (slower)' })
        .option('workspace', { type: 'string', describe: 'only sessions of this workspace folder' })
        .option('store', { type: 'string', array: true, choices: STORES_NEWEST_FIRST, describe: 'read only these stores' })
        .epilogue(
          'Reads every state root (Reasonix 1.x and 2.x rules) and the legacy roots; RXSTORE_ROOT names one state root or store directory to read instead. ' +
            'Exit 0; with --verify, 1 when Reasonix would refuse a session.',
        ),
    handler: async (args: LsArgs) => {
      const { inputs, roots } = await machineRoots(args);
      const listing = await listSessions(roots.roots, {
        platform: inputs.platform,
        verify: args.verify,
        ...(args.workspace !== undefined ? { workspace: resolve(args.workspace) } : {}),
        ...(args.store ? { stores: args.store } : {}),
      });
      for (const warning of listing.warnings) output.err(`rxstore: warning: ${warning}\n`);
      let count = 0;
      let refused = false;
      for await (const session of listing.sessions) {
        refused ||= session.status === 'damaged' || session.status === 'unsupported';
        if (args.json) output.out(`${count === 0 ? '[\n' : ',\n'}${JSON.stringify(session)}`);
        else output.out(formatRow(session));
        count += 1;
      }
      if (args.json) output.out(count === 0 ? '[]\n' : '\n]\n');
      else if (count === 0) output.err('rxstore: no sessions found\n');
      setExit(args.verify && refused ? 1 : 0);
    },
  };
}

/** One line: updated, status, messages, store, id, workspace, title, then the other copies and the parent. */
function formatRow(session: ListedSession): string {
  const updated = session.updatedAt ? session.updatedAt.slice(0, 16).replace('T', ' ') : '-'.padEnd(16);
  const store = session.scope === 'global' && session.store === 'sessions-v4' ? 'sessions-v4/global' : session.store;
  const workspace = session.workspace ?? (session.slug ? `slug ${session.slug}` : '(no workspace)');
  const extras = [
    ...(session.copies.length > 1 ? [`+${session.copies.length - 1} ${session.copies.length === 2 ? 'copy' : 'copies'}: ${session.copies.slice(1).map((copy) => copy.store).join(', ')}`] : []),
    ...(session.parent ? [`fork of ${session.parent.id}`] : []),
    ...(session.problem && (session.status === 'damaged' || session.status === 'unsupported') ? [session.problem] : []),
  ];
  const title = session.title ? JSON.stringify(session.title) : '';
  return `${updated}  ${session.status.padEnd(11)} ${String(session.messages).padStart(5)}  ${store.padEnd(19)} ${session.id.padEnd(32)}  ${workspace}  ${title}${extras.length > 0 ? `  (${extras.join('; ')})` : ''}\n`;
}
