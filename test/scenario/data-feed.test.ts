import { describe, expect, it } from 'vitest';
import { parseDataFeed, rowCursor } from '../../src/scenario/index.js';
import { parseCsv } from '../../src/scenario/csv.js';

describe('CSV', () => {
  it.each<[string, string, string[][]]>([
    [
      'simple',
      'a,b\n1,2\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'CRLF and no final newline',
      'a,b\r\n1,2',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    ['quotes, commas and escaped quotes', 'a\n"x, ""y"""\n', [['a'], ['x, "y"']]],
    [
      'a quoted field across lines',
      'a,b\n"line1\nline2",3\n',
      [
        ['a', 'b'],
        ['line1\nline2', '3'],
      ],
    ],
    [
      'empty fields',
      'a,b,c\n,,\n',
      [
        ['a', 'b', 'c'],
        ['', '', ''],
      ],
    ],
    ['blank lines skipped, BOM stripped', '\uFEFFa\n\n1\n\n', [['a'], ['1']]],
  ])('%s', (_name, text, fields) => {
    expect(parseCsv(text).records.map((r) => r.fields)).toEqual(fields);
  });

  it('numbers records by the line they start on', () => {
    expect(parseCsv('a\n"x\ny"\nz\n').records.map((r) => r.line)).toEqual([1, 2, 4]);
  });
});

describe('data feeds', () => {
  it('reports header problems and empty feeds', () => {
    expect(parseDataFeed('a,,a\n1,2,3\n', 'f.csv').issues).toEqual([
      { where: 'f.csv:1', message: 'header column 2 has no name' },
      { where: 'f.csv:1', message: 'header column "a" appears twice' },
    ]);
    expect(parseDataFeed('', 'f.csv').issues).toEqual([
      { where: 'f.csv', message: 'the file is empty (a CSV feed needs a header row)' },
    ]);
    expect(parseDataFeed('a\n', 'f.csv').issues).toEqual([
      { where: 'f.csv', message: 'the feed has no rows' },
    ]);
  });

  it('reports bad JSON lines by line number', () => {
    const feed = parseDataFeed('{"a":1}\n[1]\n{oops\n', 'f.jsonl');
    expect(feed.rows).toEqual([{ a: 1 }]);
    expect(feed.issues.map((i) => i.where)).toEqual(['f.jsonl:2', 'f.jsonl:3']);
    expect(feed.issues[0]?.message).toBe('expected a JSON object on each line');
    expect(feed.issues[1]?.message).toMatch(/^not valid JSON/);
  });

  it('hands rows out in order, wrapping, or at random', () => {
    const rows = [{ n: 1 }, { n: 2 }, { n: 3 }];
    const next = rowCursor(rows, 'sequential');
    expect([next(), next(), next(), next()].map((r) => r.n)).toEqual([1, 2, 3, 1]);
    const picks = [0.0, 0.5, 0.99];
    const random = rowCursor(rows, 'random', () => picks.shift() ?? 0);
    expect([random(), random(), random()].map((r) => r.n)).toEqual([1, 2, 3]);
    expect(() => rowCursor([], 'sequential')).toThrow();
  });
});
