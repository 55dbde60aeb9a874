import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConfigError } from '../../src/core/index.js';
import {
  compileInput,
  inspectInput,
  loadScenario,
  parseScenario,
  renderInput,
} from '../../src/scenario/index.js';
import { lengthDistribution, rowLength } from '../../src/scenario/length-distribution.js';

/*
 * Issue 48 item 5: input and output lengths from a dataset column. `{{length:row.x}}` sends the
 * row's value as a number (a CSV value is the string "200"), `{{text:row.x}}` a prompt that many
 * words long, and every row whose value is no length is refused before the run, at its line.
 */
const tmp = mkdtempSync(join(tmpdir(), 'jobstorm-row-lengths-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}

/** Every issue of a scenario, as `where  message` with the temporary folder cut off. */
function issuesOf(text: string): string[] {
  try {
    parseScenario(text, join(tmp, 'x.yaml'));
  } catch (err) {
    return (err as ConfigError).issues.map((i) => `${i.where}  ${i.message}`.replaceAll(`${tmp}/`, ''));
  }
  throw new Error('the scenario loaded without errors');
}

const ctx = { iteration: 0, flow: 'chat' };
const TEMPLATE = {
  max_tokens: '{{length:row.out_len}}',
  messages: [{ role: 'user', content: '{{text:row.in_len}}' }],
  note: 'at most {{length:row.out_len}} tokens',
};

describe('rendering {{length:row.x}} and {{text:row.x}}', () => {
  it('a CSV row: the string "200" (padded or not) becomes the number 200, and a prompt that long', () => {
    const body = compileInput(TEMPLATE);
    const out = body.render({ ...ctx, row: { out_len: ' 200 ', in_len: '7' } });
    expect(out.max_tokens).toBe(200);
    expect(out.note).toBe('at most 200 tokens');
    const [message] = out.messages as { content: string }[];
    expect(message?.content.split(' ')).toHaveLength(7);
    expect(body.rowFields).toEqual(['out_len', 'in_len']);
  });

  it('a JSON-lines row: numbers stay numbers', () => {
    const out = renderInput(TEMPLATE, { ...ctx, row: { out_len: 12, in_len: 3 } });
    expect(out).toEqual({
      max_tokens: 12,
      messages: [{ role: 'user', content: 'the time people' }],
      note: 'at most 12 tokens',
    });
  });

  it('whereas {{row.x}} sends the CSV value as written, a string', () => {
    expect(renderInput({ max_tokens: '{{row.out_len}}' }, { ...ctx, row: { out_len: '200' } })).toEqual({
      max_tokens: '200',
    });
  });

  it('a value that is no length renders empty, as a missing field does', () => {
    expect(renderInput(TEMPLATE, { ...ctx, row: { out_len: 'lots', in_len: '0' } })).toEqual({
      max_tokens: '',
      messages: [{ role: 'user', content: '' }],
      note: 'at most  tokens',
    });
  });

  it.each<[unknown, number | undefined]>([
    ['200', 200],
    [' 200 ', 200],
    [200, 200],
    [1, 1],
    ['0', undefined],
    [0, undefined],
    ['-3', undefined],
    ['2.5', undefined],
    [2.5, undefined],
    ['1e3', undefined],
    ['', undefined],
    ['abc', undefined],
    [null, undefined],
    [undefined, undefined],
    [[5], undefined],
  ])('rowLength(%j) is %s', (value, length) => {
    expect(rowLength(value)).toBe(length);
  });

  it('reports the uses as row fields read as lengths, and names row.FIELD among the distributions', () => {
    expect(inspectInput({ a: '{{length:row.n}}', b: '{{text:row.m}}', c: '{{row.n}}' }).rowUses).toEqual([
      { field: 'n', path: ['a'], as: 'length' },
      { field: 'm', path: ['b'], as: 'text' },
      { field: 'n', path: ['c'] },
    ]);
    expect(lengthDistribution('row.')).toBe(
      'unknown length distribution "row."; write fixed:N, uniform:A:B, normal:MEAN:SD, lognormal:MEAN:SD or row.FIELD (a column of the data feed)',
    );
  });
});

describe('checking the rows a length reads, before the run', () => {
  const flows = (input: string): string =>
    `phases: [{ count: 1 }]\nflows: [{ name: f, steps: [{ run: { input: ${input} } }] }]\n`;

  it('names each CSV row whose value is no whole number ≥ 1 at its line, the first five and a count', () => {
    file(
      'lens.csv',
      'prompt,out_len\nhi,200\n"two\nlines",abc\nok, 12 \nx,0\ny,2.5\nz,\nw,-1\nv,7\nu,no\nt,none\n',
    );
    expect(
      issuesOf(`name: t\ndata: { file: lens.csv }\n${flows('{ max_tokens: "{{length:row.out_len}}" }')}`),
    ).toEqual([
      'x.yaml:4:58  flows[0].steps[0].run.input.max_tokens: {{length:row.out_len}} needs a whole number ≥ 1 in column "out_len", but lens.csv:3 has "abc"',
      'x.yaml:4:58  flows[0].steps[0].run.input.max_tokens: {{length:row.out_len}} needs a whole number ≥ 1 in column "out_len", but lens.csv:6 has "0"',
      'x.yaml:4:58  flows[0].steps[0].run.input.max_tokens: {{length:row.out_len}} needs a whole number ≥ 1 in column "out_len", but lens.csv:7 has "2.5"',
      'x.yaml:4:58  flows[0].steps[0].run.input.max_tokens: {{length:row.out_len}} needs a whole number ≥ 1 in column "out_len", but lens.csv:8 has ""',
      'x.yaml:4:58  flows[0].steps[0].run.input.max_tokens: {{length:row.out_len}} needs a whole number ≥ 1 in column "out_len", but lens.csv:9 has "-1"',
      'x.yaml:4:58  flows[0].steps[0].run.input.max_tokens: {{length:row.out_len}}: and 2 more rows of lens.csv whose "out_len" is not a whole number ≥ 1',
    ]);
  });

  it('names JSON-lines rows by their line, a missing value as none, once per placeholder', () => {
    file('lens.jsonl', '{"n": 5}\n\n{"n": 2.5}\n{"m": 1}\n{"n": "9"}\n');
    expect(
      issuesOf(`name: t\ndata: { file: lens.jsonl }\n${flows('{ p: "{{text:row.n}} {{text:row.n}}" }')}`),
    ).toEqual([
      'x.yaml:4:49  flows[0].steps[0].run.input.p: {{text:row.n}} needs a whole number ≥ 1 in column "n", but lens.jsonl:3 has 2.5',
      'x.yaml:4:49  flows[0].steps[0].run.input.p: {{text:row.n}} needs a whole number ≥ 1 in column "n", but lens.jsonl:4 has no value',
    ]);
  });

  it('shows no value of a column whose name says it can hold a secret, but shows a count of tokens', () => {
    file('counts.csv', 'output_tokens\nmany\n');
    expect(
      issuesOf(
        `name: t\ndata: { file: counts.csv }\n${flows('{ max_tokens: "{{length:row.output_tokens}}" }')}`,
      ),
    ).toEqual([
      'x.yaml:4:58  flows[0].steps[0].run.input.max_tokens: {{length:row.output_tokens}} needs a whole number ≥ 1 in column "output_tokens", but counts.csv:2 has "many"',
    ]);
    file('keys.csv', 'api_key\nsk-live-abc\n');
    expect(
      issuesOf(`name: t\ndata: { file: keys.csv }\n${flows('{ n: "{{length:row.api_key}}" }')}`),
    ).toEqual([
      'x.yaml:4:49  flows[0].steps[0].run.input.n: {{length:row.api_key}} needs a whole number ≥ 1 in column "api_key", but keys.csv:2 has a value not shown (the column can hold a secret)',
    ]);
  });

  it('a column the feed lacks, and no data feed at all, name the placeholder as written', () => {
    file('ok.csv', 'out_len\n10\n');
    expect(issuesOf(`name: t\ndata: { file: ok.csv }\n${flows('{ m: "{{length:row.nope}}" }')}`)).toEqual([
      'x.yaml:4:49  flows[0].steps[0].run.input.m: uses {{length:row.nope}} but the data feed has no column "nope" (it has out_len)',
    ]);
    expect(issuesOf(`name: t\n${flows('{ p: "{{text:row.in_len}}" }')}`)).toEqual([
      'x.yaml:3:49  flows[0].steps[0].run.input.p: uses {{text:row.in_len}} but the scenario has no data feed (add data.file)',
    ]);
  });
});

describe('a scenario file with a CSV feed of lengths', () => {
  it('loads, and its job input renders max_tokens as a number and the prompt from each row', async () => {
    file('chats.csv', 'in_len,out_len\n3,200\n5,64\n');
    const path = file(
      'chats.yaml',
      [
        'name: chats',
        'data: { file: chats.csv }',
        'phases: [{ count: 2 }]',
        'flows:',
        '  - name: chat',
        '    steps:',
        '      - run: { input: { prompt: "{{text:row.in_len}}", max_tokens: "{{length:row.out_len}}" } }',
        '',
      ].join('\n'),
    );
    const s = await loadScenario(path);
    const step = s.flows[0]?.steps[0];
    if (step?.kind !== 'run') throw new Error('expected a run step');
    const rendered = (s.data?.rows ?? []).map((row) => renderInput(step.input, { ...ctx, row }));
    expect(rendered).toEqual([
      { prompt: 'the time people', max_tokens: 200 },
      { prompt: 'the time people way day', max_tokens: 64 },
    ]);
  });
});
