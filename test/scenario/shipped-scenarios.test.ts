import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, totalDurationMs, type Scenario, type Step } from '../../src/scenario/index.js';

const files = readdirSync('scenarios')
  .filter((f) => /\.(ya?ml|json|m?[tj]s)$/.test(f))
  .sort();

function allSteps(steps: readonly Step[]): Step[] {
  return steps.flatMap((s) => (s.kind === 'loop' ? [s, ...allSteps(s.steps)] : [s]));
}

function stepsOf(s: Scenario): Step[] {
  return s.flows.flatMap((f) => allSteps(f.steps));
}

async function load(name: string): Promise<Scenario> {
  return loadScenario(`scenarios/${name}.yaml`, { env: {} });
}

describe('shipped scenarios', () => {
  it('are the documented set', () => {
    expect(files).toEqual(
      [
        'burst-scaling',
        'cancel-storm',
        'limits',
        'llm-stream',
        'openai-chat',
        'purge-under-load',
        'ramp',
        'rate-limit-probe',
        'retry-cycle',
        'smoke',
        'steady-load',
        'stream-consumers',
        'ttl-and-retention',
        'webhooks',
      ].map((n) => `${n}.yaml`),
    );
  });

  it.each(files)(
    '%s validates, is named after its file and opens with a comment saying what it is for',
    async (file) => {
      const scenario = await loadScenario(`scenarios/${file}`, { env: {} });
      const name = basename(file, '.yaml');
      expect(scenario.name).toBe(name);
      expect(readFileSync(`scenarios/${file}`, 'utf8')).toMatch(new RegExp(`^# ${name}: \\S.{20,}`));
      // Short enough to run in the test suite of issue 4 and as a quick check by default.
      expect(totalDurationMs(scenario.phases)).toBeLessThanOrEqual(60_000);
    },
  );

  it('smoke takes at most 5 seconds of arrivals', async () => {
    expect(totalDurationMs((await load('smoke')).phases)).toBeLessThanOrEqual(5000);
  });

  it('each exercises what its name says', async () => {
    const kinds = async (name: string): Promise<string[]> => stepsOf(await load(name)).map((s) => s.kind);
    expect(await kinds('cancel-storm')).toContain('cancel');
    expect(await kinds('stream-consumers')).toContain('stream');
    expect(await kinds('purge-under-load')).toContain('purge');
    const llm = await load('llm-stream');
    expect(llm.llm?.objectives.ttftMs).toBe(1000);
    expect(stepsOf(llm).map((s) => s.kind)).toEqual(expect.arrayContaining(['openai', 'run', 'stream']));
    const chat = stepsOf(await load('openai-chat'));
    expect(chat.some((s) => s.kind === 'openai' && s.stream)).toBe(true);
    expect(chat.map((s) => s.kind)).toContain('requests');

    const ramp = await load('ramp');
    expect(ramp.phases.some((p) => p.kind === 'ramp')).toBe(true);

    const retry = await load('retry-cycle');
    expect(stepsOf(retry).map((s) => s.kind)).toContain('retry');
    expect(stepsOf(retry).some((s) => s.kind === 'run' && s.input.fail === true)).toBe(true);

    const ttl = await load('ttl-and-retention');
    expect(ttl.emulator.clock).toBe('manual');
    expect(stepsOf(ttl).filter((s) => s.kind === 'advance').length).toBeGreaterThan(0);
    expect(stepsOf(ttl).some((s) => s.kind === 'run' && s.policy?.ttl !== undefined)).toBe(true);

    const webhooks = await load('webhooks');
    const submits = stepsOf(webhooks).flatMap((s) => (s.kind === 'run' ? [s.webhook] : []));
    expect(submits.length).toBeGreaterThan(0);
    expect(submits.every((w) => w === true)).toBe(true);

    const limits = await load('limits');
    expect(stepsOf(limits).flatMap((s) => (s.kind === 'probe' ? [s.probe] : []))).toEqual([
      'limits',
      'auth',
      'requests',
    ]);

    const probe = await load('rate-limit-probe');
    // 429s must stay visible, so the probe never retries them.
    expect(probe.target.retry429).toBeUndefined();
    expect(probe.phases.map((p) => (p.kind === 'constant' ? p.rate : 0))).toEqual([50, 200]);
  });
});
