import type { Output } from './output.js';

/**
 * Progress of a batch job: a bar redrawn in place on a terminal, a plain line per item otherwise
 * (so logs and CI output stay readable).
 */
export class Progress {
  private done = 0;

  constructor(
    private readonly output: Output,
    private readonly total: number,
    private readonly tty: boolean,
  ) {}

  step(line: string): void {
    this.done += 1;
    if (!this.tty) {
      this.output.out(`[${this.done}/${this.total}] ${line}\n`);
      return;
    }
    const width = 30;
    const filled = Math.round((this.done / Math.max(this.total, 1)) * width);
    this.output.err(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total}`);
    if (this.done === this.total) this.output.err('\n');
  }
}
