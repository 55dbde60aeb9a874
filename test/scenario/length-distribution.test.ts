import { describe, expect, it } from 'vitest';
import { compileInput, inspectInput } from '../../src/scenario/input-template.js';
import { lengthDistribution, promptOfLength } from '../../src/scenario/length-distribution.js';
import { mulberry32 } from '../../src/schedule/index.js';

/*
 * Issue 48 item 5: input and output lengths of LLM shape from a distribution, in a job's input or
 * an OpenAI body: `{{length:<dist>}}` a number of tokens (max_tokens), `{{text:<dist>}}` a prompt.
 */
function draws(spec: string, n = 20_000, seed = 4): number[] {
  const draw = lengthDistribution(spec);
  if (typeof draw === 'string') throw new Error(draw);
  const random = mulberry32(seed);
  return Array.from({ length: n }, () => draw(random));
}

function meanAndSd(xs: readonly number[]): { mean: number; sd: number } {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  return { mean, sd: Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length) };
}

describe('length distributions', () => {
  it('fixed:N is N; uniform:A:B covers A..B evenly', () => {
    expect(new Set(draws('fixed:128', 100))).toEqual(new Set([128]));
    const u = draws('uniform:10:14');
    expect(new Set(u)).toEqual(new Set([10, 11, 12, 13, 14]));
    for (let v = 10; v <= 14; v++) expect(u.filter((x) => x === v).length / u.length).toBeCloseTo(0.2, 1);
  });

  it.each([
    ['normal:512:64', 512, 64],
    ['lognormal:200:80', 200, 80],
    ['lognormal:1000:300', 1000, 300],
  ])('%s: whole lengths with that mean and deviation (within 2 %% and 4 %%)', (spec, mean, sd) => {
    const xs = draws(spec);
    expect(xs.every((x) => Number.isInteger(x) && x >= 1)).toBe(true);
    const m = meanAndSd(xs);
    expect(Math.abs(m.mean / mean - 1)).toBeLessThan(0.02);
    expect(Math.abs(m.sd / sd - 1)).toBeLessThan(0.04);
  });

  it('lognormal is skewed right: its median is below its mean', () => {
    const xs = draws('lognormal:200:120').sort((a, b) => a - b);
    expect(xs[xs.length / 2]).toBeLessThan(190);
  });

  it('a normal that reaches below 1 is held at 1', () => {
    expect(Math.min(...draws('normal:2:5', 2000))).toBe(1);
  });

  it.each([
    ['fixed:0', 'a fixed length is a whole number ≥ 1'],
    ['uniform:9:3', 'uniform:A:B takes whole numbers 1 ≤ A ≤ B'],
    ['poisson:3', 'unknown length distribution "poisson:3"; write fixed:N, uniform:A:B, normal:MEAN:SD, lognormal:MEAN:SD or row.FIELD (a column of the data feed)'],
  ])('%s: %s', (spec, message) => {
    expect(lengthDistribution(spec)).toBe(message);
  });

  it('a prompt of N words', () => {
    expect(promptOfLength(3)).toBe('the time people');
    expect(promptOfLength(500).split(' ')).toHaveLength(500);
  });
});

describe('{{length:…}} and {{text:…}} in a template', () => {
  it('renders max_tokens as a number and the prompt as that many words, reproducibly for a seed', () => {
    const body = compileInput({
      max_tokens: '{{length:uniform:5:9}}',
      messages: [{ role: 'user', content: '{{text:fixed:7}}' }],
    });
    const render = (seed: number): Record<string, unknown> =>
      body.render({ iteration: 0, flow: 'chat', random: mulberry32(seed) });
    const out = render(1);
    expect(typeof out.max_tokens).toBe('number');
    expect(out.max_tokens).toBeGreaterThanOrEqual(5);
    expect(out.max_tokens).toBeLessThanOrEqual(9);
    const [message] = out.messages as { content: string }[];
    expect(message?.content.split(' ')).toHaveLength(7);
    expect(render(1)).toEqual(out);
  });

  it('names a bad distribution at its path', () => {
    expect(inspectInput({ sampling: { max_tokens: '{{length:normal:0:5}}' } }).problems).toEqual([
      { path: ['sampling', 'max_tokens'], message: '{{length:normal:0:5}}: the mean is above 0' },
    ]);
  });
});
