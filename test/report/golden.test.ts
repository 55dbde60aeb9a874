import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getReporter } from '../../src/report/reporter-registry.js';
import { renderTerminalSummary } from '../../src/report/report-writer.js';
import { fixtureSummary, RECORDS_FILE } from './fixtures/fixture-summary.js';
import { fixtureNdjson } from './fixtures/write-fixture.js';

/**
 * Golden files: the exact text users see. Regenerate after an intended change with
 * `UPDATE_GOLDEN=1 npx vitest run test/report/golden.test.ts` and review the diff.
 */
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, actual: string): void {
  const file = fileURLToPath(new URL(`./golden/${name}`, import.meta.url));
  if (update) writeFileSync(file, actual);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

describe('report goldens from the fixed records stream', () => {
  it('the committed records.ndjson is what the fixture generator produces', () => {
    expect(readFileSync(RECORDS_FILE, 'utf8')).toBe(fixtureNdjson());
  });

  it('terminal summary', () => {
    golden('terminal.txt', renderTerminalSummary(fixtureSummary()));
  });

  it('summary.md', () => {
    golden('summary.md', getReporter('markdown').render(fixtureSummary()));
  });

  it('junit.xml', () => {
    golden('junit.xml', getReporter('junit').render(fixtureSummary()));
  });
});
