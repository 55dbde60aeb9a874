import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import { captureIo } from '../helpers/cli-io.js';
import { readSummary, tempDir } from '../e2e/helpers.js';
import { startPrometheus, type PrometheusServer } from './prometheus-server.js';

/*
 * Issue 35 item 3: a real Prometheus receives one series per live threshold while the run goes
 * (jobstorm_threshold_ok 1 or 0, jobstorm_threshold_value in base units), so a dashboard or an
 * alert follows the verdict before the run ends. Real time: Prometheus is a real process, and the
 * test reads it while the run goes on; the run lasts 4 s, flushing every 500 ms.
 */

let prometheus: PrometheusServer | undefined;

afterEach(async () => {
  await prometheus?.kill();
  prometheus = undefined;
});

const WINDOWED = 'p99(runsync) < 10s over 2s';
const FAILING = 'rate(2xx) < 50%';

describe('threshold status exported live', () => {
  it('Prometheus holds each live threshold’s status and value during the run', async () => {
    prometheus = await startPrometheus();
    const p = prometheus;
    const dir = await tempDir('threshold-export');
    const file = join(dir, 'threshold-export.yaml');
    await writeFile(
      file,
      `name: threshold-export
phases:
  - { duration: 4s, rate: 20 }
flows:
  - name: sync
    steps:
      - runsync: { input: { sleep_ms: 20 }, wait: 5s }
thresholds:
  - "${WINDOWED}"
  - "${FAILING}"
  - "violations == 0"
`,
    );
    const out = join(dir, 'report');
    const io = captureIo();
    let ended = false as boolean;
    const code = runCli(
      [
        'run',
        file,
        '--out',
        out,
        '--quiet',
        '--export',
        `prometheus=${p.writeUrl}`,
        '--export-interval',
        '500ms',
      ],
      io,
    ).finally(() => (ended = true));
    const scenario = 'scenario="threshold-export"';
    let during: { metric: Record<string, string>; value: number }[] = [];
    // Both series, and the failing one failing: the first flush may come before any answer but
    // the preflight's 404, when no 2xx has been seen and `rate(2xx) < 50%` still holds.
    const failingSeen = (): boolean => during.some((r) => r.metric.threshold === FAILING && r.value === 0);
    while (!ended && (during.length < 2 || !failingSeen())) {
      // Real time: polls a real Prometheus process for the run's series.
      await new Promise((r) => setTimeout(r, 100));
      during = await p.query(`jobstorm_threshold_ok{${scenario}}`);
    }
    // Seen while the run still went on, not only after its last flush.
    expect(ended).toBe(false);
    const ok = Object.fromEntries(during.map((r) => [r.metric.threshold ?? '', r.value]));
    expect(ok).toEqual({ [WINDOWED]: 1, [FAILING]: 0 });
    expect(await code, io.stderr.join('\n')).toBe(ExitCode.Failed);

    const summary = await readSummary(out);
    const run = `run_id="${summary.run.id}"`;
    const values = await p.query(`jobstorm_threshold_value{${run}}`);
    const byThreshold = Object.fromEntries(values.map((r) => [r.metric.threshold ?? '', r.value]));
    // Seconds, not the threshold's ms; a share, not a percentage.
    expect(byThreshold[WINDOWED]).toBeGreaterThan(0);
    expect(byThreshold[WINDOWED]).toBeLessThan(1);
    // Nearly every answer a 2xx (the preflight's made-up job is a 404), as a 0-1 share.
    expect(byThreshold[FAILING]).toBeGreaterThan(0.9);
    expect(byThreshold[FAILING]).toBeLessThanOrEqual(1);
    // Thresholds the per-second series cannot judge (violations) are judged at the end only.
    expect(Object.keys(byThreshold)).not.toContain('violations == 0');
    expect(summary.thresholds.map((t) => [t.expression, t.ok])).toEqual([
      [WINDOWED, true],
      [FAILING, false],
      ['violations == 0', true],
    ]);
  }, 90_000);
});
