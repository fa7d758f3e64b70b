/** One line of the bench table: a figure of rxstore's next to a reference measured in the same run. */
export interface Figure {
  row: string;
  measure: string;
  rxstore: string;
  reference: string;
  /** How rxstore compares with the reference, e.g. `12.1× faster`. */
  ratio: string;
  target: string;
  /** PASS/MISS against the target; `info` where there is none; `SKIP` when it could not be measured. */
  verdict: 'PASS' | 'MISS' | 'info' | 'SKIP';
  /** The numbers behind the line, for the JSON file. */
  data: Record<string, unknown>;
}

export const verdict = (pass: boolean): Figure['verdict'] => (pass ? 'PASS' : 'MISS');

/** `1.23 s` with enough digits for both minutes and milliseconds. */
export function seconds(value: number): string {
  if (value >= 10) return `${value.toFixed(1)} s`;
  if (value >= 0.1) return `${value.toFixed(2)} s`;
  return `${(value * 1000).toFixed(value >= 0.01 ? 1 : 2)} ms`;
}

/** Throughput in MB/s (10^6 bytes) of raw record bytes. */
export function megabytesPerSecond(bytes: number, time: number): string {
  return `${(bytes / time / 1e6).toFixed(0)} MB/s`;
}

export function times(value: number): string {
  return `${value >= 10 ? value.toFixed(0) : value.toFixed(2)}×`;
}

/** How much faster rxstore is than the reference, said as `slower` when it is not faster. */
export function speedup(reference: number, ours: number): string {
  return reference >= ours ? `${times(reference / ours)} faster` : `${times(ours / reference)} slower`;
}

/** A row (or a part of one) that failed, with what it failed on in place of its figures: a MISS. */
export function failed(row: string, data: Record<string, unknown>): Figure {
  return { row, measure: 'failed', rxstore: '—', reference: '—', ratio: '—', target: '—', verdict: 'MISS', data };
}

/** A row that could not run here, with the reason in place of its figures. */
export function skipped(row: string, measure: string, reason: string): Figure {
  return {
    row,
    measure,
    rxstore: '—',
    reference: '—',
    ratio: '—',
    target: '—',
    verdict: 'SKIP',
    data: { skipped: reason },
  };
}
