import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunOutputs } from '../../../src/cli/run/run-outputs.js';
import { tempDir } from '../../e2e/helpers.js';
import { fixtureSummary } from '../../report/fixtures/fixture-summary.js';

/* Issue 12: room for the reports is kept while records are written, and given back. */

describe('RunOutputs', () => {
  it('keeps room for the reports while recording, and gives it back when writing them', async () => {
    const out = join(await tempDir('outputs'), 'out');
    const outputs = new RunOutputs(out, true, new AbortController().signal, () => undefined);
    expect((await readdir(out)).sort()).toEqual(['.jobstorm-reserve', 'records.ndjson']);
    await outputs.closeRecords();
    outputs.writeReports(fixtureSummary());
    expect(outputs.reportsFailed).toBe(false);
    expect((await readdir(out)).sort()).toEqual([
      'junit.xml',
      'records.ndjson',
      'report.html',
      'summary.json',
      'summary.md',
    ]);
  });

  it('a configuration error after the check leaves no files behind', async () => {
    const out = join(await tempDir('outputs'), 'out');
    const outputs = new RunOutputs(out, true, new AbortController().signal, () => undefined);
    outputs.discard();
    expect(await readdir(out)).toEqual([]);
    expect(outputs.interrupt.aborted).toBe(false);
  });
});
