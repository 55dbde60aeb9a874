import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startPartialServer, type PartialServer } from '../foreign/partial-server.js';
import { readRecords, readSummary, root, tempDir } from './helpers.js';

/*
 * jobstorm's own process stopped for 3 s (SIGSTOP/SIGCONT from here: a laptop lid, a frozen CI
 * container, a GC pause of a huge heap) while /runsync calls were in flight. The target answered
 * each in 900 ms, within its 1 s wait, but jobstorm read the answers only when it ran again. Those
 * answers are not the target's lateness: no runsync-wait-exceeded, and the run says jobstorm was
 * the bottleneck for those seconds. Before, it FAILED with one finding per call in flight.
 */
let server: PartialServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// Real time: the built CLI is a real process stopped and resumed from outside.
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('jobstorm stopped for 3 s while the target answered', () => {
  it('finds nothing against the target, records the gap on the answers it read late, and is marked generator-limited', async () => {
    server = await startPartialServer({ jobMs: 900 });
    const dir = await tempDir('frozen-jobstorm');
    const file = join(dir, 'frozen.yaml');
    await writeFile(
      file,
      'name: frozen\ntarget: { connections: 8, timeout: 20s }\nphases: [{ duration: 3s, rate: 5 }]\nflows:\n  - name: sync\n    steps:\n      - runsync: { input: { prompt: "x" }, wait: 1s }\n',
    );
    const out = join(dir, 'out');
    const child = spawn(
      process.execPath,
      [
        join(root, 'dist/cli/main.js'),
        'run',
        file,
        '--target',
        server.base,
        '--out',
        out,
        '--record',
        '--no-preflight',
      ],
      {
        cwd: root,
        env: { ...process.env, JOBSTORM_API_KEY: 'frozen-test-key' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      for (let i = 0; i < 600 && !/running frozen/.test(stderr); i++) await sleep(50);
      expect(stderr).toContain('running frozen');
      // Calls go out every 200 ms; stopped 1.2 s in, several are in flight and answered meanwhile.
      await sleep(1200);
      child.kill('SIGSTOP');
      await sleep(3000);
    } finally {
      child.kill('SIGCONT');
    }
    const code = await exited;
    const summary = await readSummary(out);
    const records = await readRecords(out);
    const sync = records.flatMap((r) => (r.type === 'exchange' && r.op === 'runsync' ? [r] : []));
    // Answers read after the stop say how long the loop had not run: about the 3 s.
    const readLate = sync.filter((r) => (r.loopGapMs ?? 0) >= 2500);
    expect(readLate.length).toBeGreaterThan(0);
    for (const r of readLate) expect(r.endAt - r.sentAt).toBeGreaterThan(3000);
    expect(summary.coverage['lifecycle.runsync-wait-exceeded']).toBeGreaterThanOrEqual(sync.length);
    expect(summary.violations.map((v) => `${v.id}: ${v.examples[0]?.message ?? ''}`)).toEqual([]);
    expect(code).toBe(0);
    // The stop is jobstorm's: a stretch over it, the verdict marked, and the warning given live.
    const stretch = summary.generatorLimited?.[0];
    expect(stretch).toBeDefined();
    expect(stretch?.durationMs).toBeGreaterThanOrEqual(3000);
    expect(summary.verdict.generatorLimited).toBe(true);
    expect(stderr).toContain('not getting the CPU it needs');
  }, 60_000);
});
