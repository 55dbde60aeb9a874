import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../e2e/helpers.js';

/**
 * A short run with every kind of job ending the exports count (completed, cancelled) and the
 * scenario's own tags; `extra` adds top-level YAML (e.g. an `export:` list). `o.name` names the
 * scenario (runs started in one second get one run id per name); `o.phase` replaces its one phase
 * (3 s at 30 arrivals/s).
 */
export async function exportScenario(
  extra = '',
  tags = '{ team: jobs, env: ci }',
  o: { name?: string; phase?: string } = {},
): Promise<{ dir: string; file: string }> {
  const dir = await tempDir('export');
  const file = join(dir, 'export-proof.yaml');
  await writeFile(
    file,
    `name: ${o.name ?? 'export-proof'}
tags: ${tags}
emulator: { workersMin: 2, workersMax: 8, coldStart: 50ms }
phases:
  - ${o.phase ?? '{ duration: 3s, rate: 30 }'}
flows:
  - name: submit-and-poll
    weight: 4
    steps:
      - run: { input: { sleep_ms: 30 } }
      - poll: { until: final, interval: 50ms, timeout: 10s }
  - name: cancel
    weight: 1
    steps:
      - run: { input: { sleep_ms: 3000 } }
      - cancel: {}
      - poll: { until: final, interval: 100ms, timeout: 10s }
  - name: runsync
    weight: 1
    steps:
      - runsync: { input: { sleep_ms: 20 }, wait: 5s }
thresholds: ["violations == 0"]
${extra}`,
  );
  return { dir, file };
}
