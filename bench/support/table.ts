import type { Figure } from './figure.js';

const COLUMNS = [
  ['row', 'row'],
  ['measure', 'measure'],
  ['rxstore', 'rxstore'],
  ['reference', 'reference (same run)'],
  ['ratio', 'ratio'],
  ['target', 'target'],
  ['verdict', 'verdict'],
] as const;

/** The figures as a plain-text table, one line each, columns padded to their widest cell. */
export function formatTable(figures: readonly Figure[]): string {
  const cells = [
    COLUMNS.map(([, title]) => title),
    ...figures.map((figure) => COLUMNS.map(([key]) => String(figure[key]))),
  ];
  const widths = COLUMNS.map((_, column) => Math.max(...cells.map((line) => line[column]!.length)));
  const render = (line: string[]) =>
    line
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [render(cells[0]!), rule, ...cells.slice(1).map(render)].join('\n');
}
