import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/index.js';
import { MAX_LISTED_ISSUES, openTrace, type TraceRow } from '../../src/trace/index.js';
import { tempDir } from './temp-dir.js';

const dir = tempDir();
const fixture = (name: string) => new URL(`fixtures/${name}`, import.meta.url).pathname;

function written(name: string, content: string): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

/** A mooncake trace of one row every `stepMs`, from 0. */
function mooncake(rows: number, stepMs: number): string {
  return Array.from(
    { length: rows },
    (_, i) => `{"timestamp": ${i * stepMs}, "input_length": ${i}, "output_length": 1}\n`,
  ).join('');
}

describe('openTrace', () => {
  it('reads the same rows from CRLF files without a final newline, in every format', () => {
    for (const [format, name] of [
      ['mooncake', 'mooncake.jsonl'],
      ['azure-llm', 'azure-llm.csv'],
      ['burstgpt', 'burstgpt.csv'],
      ['jobstorm', 'job-trace.jsonl'],
    ] as const) {
      const lf = readFileSync(fixture(name), 'utf8');
      const crlf = written(`crlf-${name}`, lf.replace(/\n$/, '').replace(/\n/g, '\r\n'));
      expect([...openTrace(crlf, format).rows()], name).toEqual([...openTrace(fixture(name), format).rows()]);
    }
  });

  it('counts and reads the rows of a window, fromMs included and toMs not, and again each call', () => {
    const trace = openTrace(written('window.jsonl', mooncake(10, 100)), 'mooncake');
    const window = { fromMs: 200, toMs: 500 };
    expect(trace.count(window)).toBe(3);
    expect([...trace.rows(window)].map((r) => r.atMs)).toEqual([200, 300, 400]);
    expect([...trace.rows({ fromMs: 850 })].map((r) => r.atMs)).toEqual([900]);
    expect(trace.count({ toMs: 0 })).toBe(0);
    // Re-openable: two iterators at once, each from the start.
    const a = trace.rows();
    const b = trace.rows();
    const at = (next: IteratorResult<TraceRow, void>) => (next.done === true ? undefined : next.value.atMs);
    expect([at(a.next()), at(a.next()), at(b.next())]).toEqual([0, 100, 0]);
    a.return(undefined);
    b.return(undefined);
    expect(trace.count()).toBe(10);
    expect(trace.spanMs()).toBe(900);
  });

  it('stops reading at the window’s end: a bad row after it is not reached', () => {
    const file = written('late-bad.jsonl', `${mooncake(3, 100)}not json\n`);
    expect(openTrace(file, 'mooncake').count({ toMs: 200 })).toBe(2);
    expect(() => openTrace(file, 'mooncake').count()).toThrow(`${file}:4: not valid JSON`);
  });

  it(`lists every issue up to ${MAX_LISTED_ISSUES} and counts the rest`, () => {
    const bad = Array.from({ length: 25 }, (_, i) => `{"timestamp": ${i}}\n`).join('');
    const file = written('many-bad.jsonl', `${mooncake(1, 0)}${bad}`);
    const result = openTrace(file, 'mooncake').validate();
    expect(result.rowsChecked).toBe(26);
    expect(result.issues).toHaveLength(MAX_LISTED_ISSUES);
    expect(result.issues[0]).toEqual({
      where: `${file}:2`,
      message:
        'input_length: missing (expected a number >= 0); output_length: missing (expected a number >= 0)',
    });
    expect(result.issues.at(-1)?.where).toBe(`${file}:21`);
    expect(result.moreIssues).toBe(5);
    // The first N rows only.
    const first = openTrace(file, 'mooncake').validate(3);
    expect(first.rowsChecked).toBe(3);
    expect(first.issues.map((i) => i.where)).toEqual([`${file}:2`, `${file}:3`]);
  });

  it('reports an empty trace, and one that is only a header', () => {
    const empty = written('empty.jsonl', '\n\n');
    expect(openTrace(empty, 'mooncake').validate().issues).toEqual([
      { where: empty, message: 'the trace has no rows' },
    ]);
    expect(openTrace(empty, 'mooncake').spanMs()).toBe(0);
    const header = written('header.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n');
    expect(openTrace(header, 'azure-llm').validate().issues).toEqual([
      {
        where: header,
        message: 'the trace has no rows (a azure-llm trace is its header row, then one row a line)',
      },
    ]);
    const nothing = written('nothing.csv', '');
    expect(openTrace(nothing, 'burstgpt').validate().issues).toEqual([
      {
        where: nothing,
        message: 'the trace has no rows (a burstgpt trace is its header row, then one row a line)',
      },
    ]);
  });

  it('refuses a file that is not there, or a folder, as a ConfigError naming it', () => {
    const missing = join(dir, 'missing.jsonl');
    expect(() => openTrace(missing, 'mooncake')).toThrow(ConfigError);
    expect(() => openTrace(missing, 'mooncake')).toThrow(`${missing}: cannot read the trace (ENOENT`);
    expect(() => openTrace(dir, 'jobstorm')).toThrow(`${dir}: the trace is not a file`);
  });
});
