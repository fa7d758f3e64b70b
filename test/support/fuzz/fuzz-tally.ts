import type { CheckResult, Finding } from './fuzz-check.js';
import type { Category, FuzzInput } from './fuzz-inputs.js';

interface CategoryTotals {
  inputs: number;
  ms: number;
  cpuMs: number;
  /** The most CPU one input took. */
  slowestMs: number;
  /** Outcomes by layer and code: `codec RX_DAMAGED_STORE`, `session torn-tail`, … */
  outcomes: Map<string, number>;
  findings: number;
}

/** All inputs that showed one finding: how many, and the first, to make again. */
export interface FindingGroup {
  finding: Finding;
  count: number;
  first: Pick<FuzzInput, 'category' | 'index' | 'recipe'>;
}

/** Counts of a fuzz run: inputs and outcomes per category, findings grouped by what they say. */
export class FuzzTally {
  readonly categories = new Map<Category, CategoryTotals>();
  readonly findings = new Map<string, FindingGroup>();

  /** Counts one checked input; returns the findings no input had shown before. */
  add(input: FuzzInput, result: CheckResult): FindingGroup[] {
    const totals = this.categories.get(input.category) ?? {
      inputs: 0,
      ms: 0,
      cpuMs: 0,
      slowestMs: 0,
      outcomes: new Map(),
      findings: 0,
    };
    this.categories.set(input.category, totals);
    totals.inputs += 1;
    totals.ms += result.ms;
    totals.cpuMs += result.cpuMs;
    totals.slowestMs = Math.max(totals.slowestMs, result.cpuMs);
    for (const outcome of [result.codec && `codec ${result.codec}`, result.session && `session ${result.session}`]) {
      if (outcome) totals.outcomes.set(outcome, (totals.outcomes.get(outcome) ?? 0) + 1);
    }
    totals.findings += result.findings.length;
    const fresh: FindingGroup[] = [];
    for (const finding of result.findings) {
      // A finding's first line names it; numbers in it (sizes, offsets, times) vary from input to input.
      const key = `${finding.kind} ${finding.layer} ${finding.detail.split('\n')[0]!.replace(/\d+/g, 'N')}`;
      const group = this.findings.get(key);
      if (group) group.count += 1;
      else {
        const created = {
          finding,
          count: 1,
          first: { category: input.category, index: input.index, recipe: input.recipe },
        };
        this.findings.set(key, created);
        fresh.push(created);
      }
    }
    return fresh;
  }

  get inputs(): number {
    return [...this.categories.values()].reduce((sum, totals) => sum + totals.inputs, 0);
  }

  get findingCount(): number {
    return [...this.findings.values()].reduce((sum, group) => sum + group.count, 0);
  }

  /** One block per category, then one per kind of finding with the first input that showed it. */
  format(): string {
    const lines: string[] = [];
    for (const [category, totals] of this.categories) {
      lines.push(
        `${category.padEnd(14)} ${String(totals.inputs).padStart(6)} inputs  ${Math.round(totals.ms)} ms, ${Math.round(totals.cpuMs)} ms CPU (slowest input ${Math.round(totals.slowestMs)} ms CPU)  ${totals.findings} findings`,
      );
      for (const layer of ['codec', 'session']) {
        const counts = [...totals.outcomes]
          .filter(([outcome]) => outcome.startsWith(`${layer} `))
          .sort(([, a], [, b]) => b - a);
        if (counts.length > 0)
          lines.push(
            `${''.padEnd(16)}${layer}: ${counts.map(([outcome, count]) => `${outcome.slice(layer.length + 1)} ${count}`).join(', ')}`,
          );
      }
    }
    lines.push(`${this.inputs} inputs, ${this.findingCount} findings`);
    for (const group of this.findings.values()) {
      lines.push(
        '',
        `FINDING ${group.finding.kind} in ${group.finding.layer} ×${group.count}, first: ${group.first.category} #${group.first.index} (${group.first.recipe.slice(0, 300)})`,
      );
      lines.push(...group.finding.detail.split('\n').map((line) => `    ${line}`));
    }
    return lines.join('\n');
  }
}
