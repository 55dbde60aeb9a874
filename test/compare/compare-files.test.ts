import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/compare/compare-data.js';
import { renderCompareJunit } from '../../src/compare/compare-junit.js';
import { renderCompareMarkdown } from '../../src/compare/compare-markdown.js';
import { COMPARE_FILES, writeComparison } from '../../src/compare/compare-writer.js';
import { readRun, summaryPath } from '../../src/compare/run-input.js';
import { BASELINE_FILE, CURRENT_FILE, fixture, fixtureComparison } from './fixtures/compare-fixture.js';

/* What `jobstorm compare` reads (a run folder or a summary.json) and what it writes. */
let dir = '';
let cmp: Comparison;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobstorm-compare-'));
  cmp = fixtureComparison();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the run given to compare', () => {
  it('a folder is read through its summary.json; a file, or a path that is not there, as given', async () => {
    expect(await summaryPath(dir)).toBe(join(dir, 'summary.json'));
    expect(await summaryPath(BASELINE_FILE)).toBe(BASELINE_FILE);
    const missing = join(dir, 'no-such-run');
    expect(await summaryPath(missing)).toBe(missing);
  });

  it('reads the summary of a folder as of the file itself', async () => {
    const folder = join(dir, 'run-a');
    await writeComparison(cmp, fixture(BASELINE_FILE), fixture(CURRENT_FILE), folder);
    await writeFile(join(folder, 'summary.json'), await readFile(BASELINE_FILE, 'utf8'));
    expect(await readRun(folder)).toEqual(fixture(BASELINE_FILE));
    expect(await readRun(BASELINE_FILE)).toEqual(fixture(BASELINE_FILE));
  });
});

describe('writeComparison', () => {
  it('writes compare.json, compare.md, compare.html and compare-junit.xml, and returns their paths', async () => {
    const out = join(dir, 'out');
    const paths = await writeComparison(cmp, fixture(BASELINE_FILE), fixture(CURRENT_FILE), out);
    expect(paths).toEqual(COMPARE_FILES.map((f) => join(out, f)));
    expect(JSON.parse(await readFile(join(out, 'compare.json'), 'utf8'))).toEqual(
      JSON.parse(JSON.stringify(cmp)),
    );
    expect(await readFile(join(out, 'compare.json'), 'utf8')).toBe(`${JSON.stringify(cmp, null, 2)}\n`);
    expect(await readFile(join(out, 'compare.md'), 'utf8')).toBe(renderCompareMarkdown(cmp));
    expect(await readFile(join(out, 'compare-junit.xml'), 'utf8')).toBe(renderCompareJunit(cmp));
    expect(await readFile(join(out, 'compare.html'), 'utf8')).toMatch(/^<!doctype html>/i);
  });

  it('appends compare.md to a step summary when given one, and names it last', async () => {
    const out = join(dir, 'step');
    const step = join(dir, 'step-summary.md');
    await writeFile(step, 'before\n');
    const paths = await writeComparison(cmp, fixture(BASELINE_FILE), fixture(CURRENT_FILE), out, {
      stepSummaryPath: step,
    });
    expect(paths).toEqual([...COMPARE_FILES.map((f) => join(out, f)), step]);
    expect(await readFile(step, 'utf8')).toBe(`before\n${renderCompareMarkdown(cmp)}\n`);
  });
});
