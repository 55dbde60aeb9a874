import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseTolerances, tolerancesMarkdown } from '../../src/check/tolerance-options.js';
import { ConfigError } from '../../src/core/config-error.js';
import { ex, job, runRecord } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

describe('--tolerance', () => {
  it('parses name=value over the defaults, every problem at once', () => {
    expect(parseTolerances(['clockSkewMs=2500', 'rateOverrun=0.1'])).toEqual({
      clockSkewMs: 2500,
      rateOverrun: 0.1,
    });
    try {
      parseTolerances(['clockskew=1', 'waitGraceMs=soon', 'rateUnderrun=2']);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).issues.map((i) => i.message)).toEqual([
        expect.stringContaining('"clockskew=1"'),
        expect.stringContaining('must be a number'),
        expect.stringContaining('rateUnderrun'),
      ]);
    }
  });

  it('changes what a check allows', () => {
    const records = [
      ex('runsync', 0, 200, job('s', 'COMPLETED', { delayTime: 1, executionTime: 1 }), {
        jobId: 's',
        took: 4500,
        req: { wait: 2000 },
      }),
    ];
    const strict = new FoldedChecker(runRecord());
    const loose = new FoldedChecker(runRecord(), { tolerances: parseTolerances(['waitGraceMs=5000']) });
    for (const r of records) {
      strict.add(r);
      loose.add(r);
    }
    expect(strict.finish().violations.map((g) => g.id)).toEqual(['lifecycle.runsync-wait-exceeded']);
    expect(loose.finish().violations).toEqual([]);
  });

  it('is documented in the README, generated from the schema (regenerate with UPDATE_README=1)', async () => {
    const readme = new URL('../../docs/reference/checks.md', import.meta.url);
    const text = await readFile(readme, 'utf8');
    const start = '<!-- tolerances:start -->';
    const end = '<!-- tolerances:end -->';
    const i = text.indexOf(start);
    const j = text.indexOf(end);
    const wanted = `${start}\n${tolerancesMarkdown()}\n${end}`;
    if (process.env.UPDATE_README === '1') {
      await writeFile(readme, text.slice(0, i) + wanted + text.slice(j + end.length));
      return;
    }
    expect(text.slice(i, j + end.length)).toBe(wanted);
  });
});
