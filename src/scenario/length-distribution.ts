import { standardNormal } from '../core/seeded-random.js';

/*
 * Input and output lengths of LLM shape (issue 48 item 5): `{{length:<dist>}}` renders a whole
 * number of tokens drawn from a distribution (for `max_tokens`), `{{text:<dist>}}` a prompt of that
 * many words (one token each for the common tokenizers). The distributions are the ones the LLM
 * benchmarks offer:
 *   fixed:N            always N
 *   uniform:A:B        a whole number from A to B, each as likely
 *   normal:MEAN:SD     rounded, at least 1 (AIPerf's synthetic lengths)
 *   lognormal:MEAN:SD  the mean and standard deviation of the lengths themselves, rounded, at least 1
 * or `row.FIELD`, a column of the data feed: `{{length:row.out_len}}` renders that row's value as a
 * number (a CSV value is a string, so `{{row.out_len}}` alone would send "200"), and
 * `{{text:row.in_len}}` a prompt of that many words.
 */

/** Draws one length from a uniform [0, 1) source. */
export type LengthDraw = (random: () => number) => number;

const NUMBER = '(\\d+(?:\\.\\d+)?)';
const FORMS: readonly [RegExp, (a: number, b: number) => LengthDraw | string][] = [
  [
    new RegExp(`^fixed:${NUMBER}$`),
    (n) => (Number.isInteger(n) && n >= 1 ? () => n : 'a fixed length is a whole number ≥ 1'),
  ],
  [
    new RegExp(`^uniform:${NUMBER}:${NUMBER}$`),
    (a, b) =>
      !Number.isInteger(a) || !Number.isInteger(b) || a < 1 || a > b
        ? 'uniform:A:B takes whole numbers 1 ≤ A ≤ B'
        : (random) => a + Math.floor(random() * (b - a + 1)),
  ],
  [
    new RegExp(`^normal:${NUMBER}:${NUMBER}$`),
    (m, s) => (m <= 0 ? 'the mean is above 0' : (random) => atLeastOne(m + s * standardNormal(random))),
  ],
  [
    new RegExp(`^lognormal:${NUMBER}:${NUMBER}$`),
    (m, s) => {
      if (m <= 0) return 'the mean is above 0';
      // The lengths' own mean m and deviation s: σ² = ln(1 + s²/m²), μ = ln m − σ²/2.
      const sigma = Math.sqrt(Math.log(1 + (s * s) / (m * m)));
      const mu = Math.log(m) - (sigma * sigma) / 2;
      return (random) => atLeastOne(Math.exp(mu + sigma * standardNormal(random)));
    },
  ],
];

const HELP =
  'write fixed:N, uniform:A:B, normal:MEAN:SD, lognormal:MEAN:SD or row.FIELD (a column of the data feed)';

/** The draw a distribution names, or what is wrong with it. */
export function lengthDistribution(spec: string): LengthDraw | string {
  for (const [pattern, make] of FORMS) {
    const m = pattern.exec(spec);
    if (m !== null) return make(Number(m[1]), Number(m[2] ?? 0));
  }
  return `unknown length distribution "${spec}"; ${HELP}`;
}

/**
 * The length a data row's value gives: a whole number ≥ 1, or a string holding one (CSV values are
 * strings, padded or not), else undefined.
 */
export function rowLength(value: unknown): number | undefined {
  let n = Number.NaN;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) n = Number(value);
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

function atLeastOne(x: number): number {
  return Math.max(1, Math.round(x));
}

const WORDS = [
  'the',
  'time',
  'people',
  'way',
  'day',
  'man',
  'thing',
  'woman',
  'life',
  'child',
  'world',
  'school',
];

/** A prompt of `n` common words, one token each for the common tokenizers. */
export function promptOfLength(n: number): string {
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = WORDS[i % WORDS.length] ?? 'the';
  return out.join(' ');
}
