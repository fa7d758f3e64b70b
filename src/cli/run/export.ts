import { EXIT, type ExitCode } from '../exit-codes.js';
import { terminalSafeJson } from '../json-output.js';
import {
  printable,
  exportSession,
  exportStream,
  openSession,
  type ExportFormat,
  type ExportView,
  resolveSession,
} from '../../index.js';
import { warningLine } from '../error-line.js';
import { resolve } from 'node:path';
import { printPieces, type Output } from '../output.js';
import type { RootArgs } from '../root-options.js';
import { counted } from '../plural.js';

/** What `rxstore export` is run with: the options export.ts declares, as yargs gives them. */
export interface ExportArgs extends RootArgs {
  session: string;
  to: string;
  format: ExportFormat;
  view: ExportView;
  force: boolean;
}

/** Each piece of JSON text with no raw control character (`terminalSafeJson`). */
async function* terminalSafe(pieces: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const piece of pieces) yield terminalSafeJson(piece);
}

/** `--to -`: standard output. */
const STDOUT = '-';

/** `rxstore export`, run: the command's options are in export.ts. */
export async function runExport(args: ExportArgs, output: Output, setExit: (code: ExitCode) => void): Promise<void> {
  const session = await openSession(await resolveSession(args.session, args));
  // The export is the session as it is: one Reasonix takes no new turn in is no more gone on with once exported.
  // Said first, whatever comes of the export: the read that says it is the one the export starts from.
  const { problems } = await session.read({ keep: 'index', previews: true });
  const refusedTurn = problems.find(({ code }) => code === 'RX_TURN_REFUSED');
  if (refusedTurn)
    output.err(
      warningLine(
        `${refusedTurn.message.replace(/; `rxstore salvage` writes a copy it goes on with$/, '')}; the export keeps it as it is: \`rxstore salvage\` writes a copy Reasonix goes on with`,
      ),
    );
  if (args.to === STDOUT) {
    const exported = await exportStream(session, { format: args.format, view: args.view, id: session.id });
    // On standard output, likely a terminal: the same JSON values, with no raw control character.
    await printPieces(terminalSafe(exported.document), output);
    setExit(EXIT.done);
    return;
  }
  const report = await exportSession(session, {
    to: resolve(args.to),
    format: args.format,
    view: args.view,
    force: args.force,
    given: args.to,
  });
  if (report.unchanged.length === report.files.length)
    output.out(
      `already exported: ${printable(report.files.join(' and '))} ${report.files.length === 1 ? 'holds' : 'hold'} exactly these ${counted(report.messages, 'message')}; nothing was written\n`,
    );
  else output.out(`exported ${counted(report.messages, 'message')} to ${printable(report.files.join(' and '))}\n`);
  setExit(EXIT.done);
}
