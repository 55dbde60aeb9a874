import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { getReporter } from '../../src/report/reporter-registry.js';
import { writeReports } from '../../src/report/report-writer.js';
import { readSummary } from '../../src/report/summary-schema.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';

async function configIssues(p: Promise<unknown>): Promise<string[]> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.where}: ${i.message}`);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('summary.json', () => {
  it('writes the four report files, and rebuilds identical reports from summary.json alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-summary-'));
    const summary = fixtureSummary();
    const written = await writeReports(summary, dir);
    expect(written.map((p) => p.slice(dir.length + 1)).sort()).toEqual([
      'junit.xml',
      'report.html',
      'summary.json',
      'summary.md',
    ]);
    const back = await readSummary(join(dir, 'summary.json'));
    expect(back).toEqual(summary);
    for (const name of ['markdown', 'junit', 'terminal', 'html']) {
      expect(getReporter(name).render(back), name).toBe(getReporter(name).render(summary));
    }
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toBe(getReporter('markdown').render(back));
  });

  it('appends the Markdown summary to a step-summary file when given one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-summary-'));
    const step = join(dir, 'step.md');
    writeFileSync(step, 'earlier step\n');
    await writeReports(fixtureSummary(), join(dir, 'out'), {
      reporters: ['markdown'],
      stepSummaryPath: step,
    });
    const text = readFileSync(step, 'utf8');
    expect(text.startsWith('earlier step\n## jobstorm')).toBe(true);
  });

  it('a damaged file is a ConfigError naming the file and the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-summary-'));
    const file = join(dir, 'summary.json');
    const json = JSON.parse(JSON.stringify(fixtureSummary())) as {
      operations: { run: { requests: unknown } };
      jobs: { lost: unknown };
    };
    json.operations.run.requests = 'many';
    json.jobs.lost = -1;
    writeFileSync(file, JSON.stringify(json));
    const issues = await configIssues(readSummary(file));
    expect(issues).toHaveLength(2);
    expect(issues[0]).toContain(`${file}: operations.run.requests`);
    expect(issues[1]).toContain(`${file}: jobs.lost`);
  });

  it('an unknown version, bad JSON or a missing file are ConfigErrors too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-summary-'));
    const file = join(dir, 'summary.json');
    writeFileSync(file, JSON.stringify({ ...fixtureSummary(), version: 99 }));
    expect(await configIssues(readSummary(file))).toEqual([
      `${file}: version: unsupported summary version 99; this jobstorm reads version 1`,
    ]);
    writeFileSync(file, '{"version": 1,');
    expect((await configIssues(readSummary(file)))[0]).toMatch(/not valid JSON/);
    expect((await configIssues(readSummary(join(dir, 'nope.json'))))[0]).toMatch(/cannot read summary/);
  });
});
