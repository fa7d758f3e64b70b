import type { Reporter, TestCase, TestModule, TestSpecification } from 'vitest/node';
import type { SerializedError } from 'vitest';

/**
 * Prints the plain closing line `N passed, N failed` (with `, N skipped: …` when any were), which CI
 * reads to tell that tests ran; vitest's own summary is not in that form. Every skip says why, so
 * tests that vanish on one machine cannot pass unnoticed: the reason is the `— skipped: <why>`
 * a test or one of its suites puts in its name (or the note of `context.skip(note)`). A test that never
 * finished (its test process died, a native crash), an error outside any test and a test file that never
 * ran (a global setup that failed: vitest then reports no file at all) count as failed.
 */
export default class SummaryReporter implements Reporter {
  private scheduled = 0;

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.scheduled = specifications.length;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []): void {
    let passed = 0;
    let failed = 0;
    let unfinished = 0;
    const skipped = new Map<string, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed += 1;
        else if (result.state === 'failed') failed += 1;
        else if (result.state === 'pending') unfinished += 1;
        else {
          const why = skipReason(test, result.state === 'skipped' ? result.note : undefined);
          skipped.set(why, (skipped.get(why) ?? 0) + 1);
        }
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed += 1;
    }
    const skippedCount = [...skipped.values()].reduce((sum, count) => sum + count, 0);
    const reasons = [...skipped].map(([why, count]) => `${count} ${why}`).join('; ');
    const neverRan = Math.max(0, this.scheduled - testModules.length);
    const notes = [
      unfinished > 0 ? `${unfinished} never finished` : '',
      unhandledErrors.length > 0
        ? `${unhandledErrors.length} error${unhandledErrors.length === 1 ? '' : 's'} outside any test`
        : '',
      neverRan > 0 ? `${neverRan} test file${neverRan === 1 ? '' : 's'} never ran` : '',
    ].filter(Boolean);
    failed += unfinished + unhandledErrors.length + neverRan;
    process.stdout.write(
      `\n${passed} passed, ${failed} failed${notes.length > 0 ? ` (${notes.join(', ')})` : ''}${skippedCount > 0 ? `, ${skippedCount} skipped: ${reasons}` : ''}\n`,
    );
  }
}

function skipReason(test: TestCase, note: string | undefined): string {
  if (note) return note;
  const names: string[] = [test.name];
  for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) names.push(parent.name);
  for (const name of names) {
    const at = name.lastIndexOf('— skipped: ');
    if (at >= 0) return name.slice(at + '— skipped: '.length).trim();
  }
  return `no reason given (${test.module.moduleId.split('/').slice(-2).join('/')}: ${test.name})`;
}
