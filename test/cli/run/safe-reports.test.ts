import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReportsSafely } from '../../../src/cli/run/safe-reports.js';
import { tempDir } from '../../e2e/helpers.js';
import { fixtureSummary } from '../../report/fixtures/fixture-summary.js';

/* Issue 12: one report that cannot be written does not stop the others, and nothing throws. */

describe('writeReportsSafely', () => {
  it('writes every report it can, summary.json first, and lists the one that failed', async () => {
    const dir = await tempDir('safe-reports');
    // A folder where summary.md should go: writing it fails (EISDIR), the others must not.
    await mkdir(join(dir, 'summary.md'));
    const result = writeReportsSafely(fixtureSummary(), dir);
    expect(result.failed.map((f) => f.path)).toEqual([join(dir, 'summary.md')]);
    expect(result.failed[0]?.reason).toMatch(/^EISDIR/);
    expect(result.written[0]).toBe(join(dir, 'summary.json'));
    for (const f of ['summary.json', 'report.html', 'junit.xml'])
      expect(existsSync(join(dir, f)), f).toBe(true);
    expect(JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8'))).toMatchObject({ version: 1 });
  });
});
