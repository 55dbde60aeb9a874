import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { phaseAt, phasePlanOf } from '../../../src/cli/run/phase-plan.js';
import { inlineScenario } from '../../runner/helpers.js';

describe('the phase plan of a scenario that replays a trace', () => {
  it('names an unnamed trace phase by its file and ends it at its last row, scaled', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'jobstorm-trace-plan-')), 'burst.jsonl');
    const row = (t: number): string => JSON.stringify({ timestamp: t, input_length: 1, output_length: 1 });
    writeFileSync(file, [row(100), row(2100), row(4100)].join('\n'));
    const base = inlineScenario(`name: plan
phases: [{ name: first, duration: 1s, rate: 1 }]
flows: [{ name: f, steps: [{ run: { input: {} } }] }]
`);
    const first = base.phases[0];
    if (first === undefined) throw new Error('no phase');
    const plan = phasePlanOf({
      ...base,
      phases: [first, { kind: 'trace', file, format: 'mooncake', timeScale: 2, loops: 1 }],
    });
    expect(plan.phases).toEqual([
      { name: 'first', startMs: 0, endMs: 1000 },
      { name: 'replay burst.jsonl', startMs: 1000, endMs: 3000 },
    ]);
    expect(phaseAt(plan, 1500).long).toBe('replay burst.jsonl (2/2)');
  });
});
