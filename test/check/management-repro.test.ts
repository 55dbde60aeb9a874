import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { resolveTarget } from '../../src/cli/run/target.js';
import type { RunRecord } from '../../src/core/record.js';
import { runScenario } from '../../src/runner/runner.js';
import { parseScenario } from '../../src/scenario/scenario-parser.js';
import { systemClock } from '../../src/core/clock.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * The curl reproductions of management calls go to the management base, `{origin}/v1`: a run
 * against the emulator whose management answers break their schema (fault malformed-bodies) gives
 * violations on StartPod and CreateEndpoint, and their repro commands, run with curl against the
 * same emulator, reach its management routes (not a 404 for an unknown path).
 */

const SCENARIO = `
name: management-repro
emulator: { workersMin: 1, workersMax: 1, coldStart: 0 }
phases: [{ count: 1 }]
flows:
  - name: management
    steps:
      - probe: management
`;

const sh = promisify(execFile);

describe('repro of management calls', () => {
  it('keeps /v1 and reaches the management routes it reproduces', async () => {
    const scenario = parseScenario(SCENARIO, 'management.yaml', { env: {} });
    const { target, emulator } = await resolveTarget({ scenario, fault: ['malformed-bodies'] });
    try {
      let checker: FoldedChecker | undefined;
      let run: RunRecord | undefined;
      await runScenario({
        clock: systemClock,
        scenario,
        target,
        runId: 'management-repro',
        gracefulStopMs: 5000,
        drainMs: 500,
        onRecord: (r) => {
          if (r.type === 'run') {
            run = r;
            checker = new FoldedChecker(r);
          } else checker?.add(r);
        },
      });
      const groups = checker?.finish().violations ?? [];
      const reproOf = (id: string): string => {
        const repro = groups.find((g) => g.id === id)?.examples[0]?.repro;
        expect(repro, `${id} fired with a repro`).toBeDefined();
        return repro ?? '';
      };
      const origin = new URL(run?.target ?? '').origin;
      const startPod = reproOf('schema.StartPod');
      const createEndpoint = reproOf('schema.CreateEndpoint');
      expect(startPod).toContain(`'${origin}/v1/pods/jobstorm-probe-no-such-pod/start'`);
      expect(createEndpoint).toContain(`'${origin}/v1/endpoints'`);
      expect(target.managementUrl).toBe(`${origin}/v1`);

      // Replayed as printed (the key from the environment, as the repro says), each reaches the
      // route: the malformed body the fault serves, not the emulator's unknown-path 404.
      for (const repro of [startPod, createEndpoint]) {
        const { stdout } = await sh('sh', ['-c', `${repro} -w '\\n%{http_code}'`], {
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', JOBSTORM_API_KEY: target.apiKey },
        });
        const unknownPath = await sh('sh', ['-c', `${repro.replace('/v1/', '/')} -w '\\n%{http_code}'`], {
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', JOBSTORM_API_KEY: target.apiKey },
        });
        expect(unknownPath.stdout).toContain('no route');
        expect(stdout, repro).not.toContain('no route');
        expect(stdout.split('\n').pop(), repro).not.toBe('401');
      }
    } finally {
      await emulator?.close();
    }
  }, 60_000);
});
