/**
 * Flow mode side by side with Artillery (issue 4, "Speed": ≥ 5× the requests/s Artillery achieves
 * on the same flow with its own CPU fully used). Same bare flow server (CPU 1), same flow (`run`,
 * then poll /status until final: three requests), each generator on CPU 0 in turn. Artillery is
 * given more arrivals than it can serve, so its CPU is the limit; ours runs at a fixed open rate
 * it must keep (rate within 1%). Also prints CPU µs per request, the fairer comparison when the
 * server is the ceiling (perf-anchors.md).
 *
 * Artillery is not a dependency: install it aside, e.g.
 *   mkdir -p /tmp/jobstorm-artillery && cd /tmp/jobstorm-artillery && npm init -y && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm i artillery@2
 * then
 *   ARTILLERY=/tmp/jobstorm-artillery/node_modules/.bin/artillery npx tsx bench/runner-vs-artillery.ts [seconds=10] [ourArrivalsPerSecond=2400] [artilleryArrivalsPerSecond=800]
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canPin, flowScenario, pinSelf, runFlow, startFlowServer } from './runner-bench-setup.js';

const seconds = Number(process.argv[2] ?? 10);
const ourRate = Number(process.argv[3] ?? 2400);
const artilleryRate = Number(process.argv[4] ?? 800);
const artillery = process.env.ARTILLERY ?? '/tmp/jobstorm-artillery/node_modules/.bin/artillery';
const script = fileURLToPath(new URL('./artillery/flow.yml', import.meta.url));

if (!existsSync(artillery)) {
  console.error(
    `no Artillery at ${artillery}; see the header of this file for how to install it, or set ARTILLERY`,
  );
  process.exit(2);
}

interface ArtilleryResult {
  requests: number;
  responses: number;
  errors: number;
  rps: number;
  cpuSeconds: number;
  wallSeconds: number;
  maxRssMb: number;
}

interface ArtilleryReport {
  aggregate: { counters: Record<string, number | undefined>; firstMetricAt?: number; lastMetricAt?: number };
}

async function runArtillery(origin: string): Promise<ArtilleryResult> {
  const dir = await mkdtemp(join(tmpdir(), 'jobstorm-artillery-'));
  const output = join(dir, 'report.json');
  const overrides = JSON.stringify({
    config: { phases: [{ duration: seconds, arrivalRate: artilleryRate }] },
  });
  const pin = canPin ? ['taskset', '-c', '0'] : [];
  const args = [
    '-f',
    '%U %S %e %M',
    ...pin,
    artillery,
    'run',
    '--quiet',
    '--target',
    origin,
    '--overrides',
    overrides,
    '--output',
    output,
    script,
  ];
  const stderr = await new Promise<string>((resolve, reject) => {
    execFile(
      '/usr/bin/time',
      args,
      { env: { ...process.env, ARTILLERY_DISABLE_TELEMETRY: 'true' }, maxBuffer: 64 * 1024 * 1024 },
      (err, _out, errText) => {
        if (err) reject(new Error(`artillery failed: ${err.message}\n${errText.slice(-2000)}`));
        else resolve(errText);
      },
    );
  });
  const timing = stderr.trim().split('\n').pop()?.split(' ').map(Number) ?? [];
  const [user = 0, sys = 0, wall = 0, rssKb = 0] = timing;
  const report = JSON.parse(await readFile(output, 'utf8')) as ArtilleryReport;
  const c = report.aggregate.counters;
  const responses = c['http.responses'] ?? 0;
  const errors = Object.entries(c)
    .filter(([k]) => k.startsWith('errors.'))
    .reduce((sum, [, v]) => sum + (v ?? 0), 0);
  // Its own first and last metric: Artillery finishes its virtual users after the phase.
  const spanS = ((report.aggregate.lastMetricAt ?? 0) - (report.aggregate.firstMetricAt ?? 0)) / 1000;
  return {
    requests: c['http.requests'] ?? 0,
    responses,
    errors,
    rps: responses / Math.max(seconds, spanS),
    cpuSeconds: user + sys,
    wallSeconds: wall,
    maxRssMb: rssKb / 1024,
  };
}

const pinned = pinSelf();
const server = await startFlowServer();
try {
  console.log(
    `pinned: ${pinned && canPin ? 'generator CPU 0, server CPU 1' : 'no (taskset unavailable)'}; ${String(seconds)} s each; flow: run, then /status until final (3 requests)`,
  );
  const a = await runArtillery(server.origin);
  console.log(
    `artillery: ${a.rps.toFixed(0)} req/s (${String(a.responses)} responses of ${String(a.requests)} requests, ${String(a.errors)} errors; offered ${String(artilleryRate)} arrivals/s) · CPU ${a.cpuSeconds.toFixed(1)} s over ${a.wallSeconds.toFixed(1)} s wall (incl. start-up and exit) · ${((a.cpuSeconds * 1e6) / a.responses).toFixed(0)} µs/request · max RSS ${a.maxRssMb.toFixed(0)} MB`,
  );
  await runFlow(server.origin, flowScenario(Math.min(ourRate, 1000), 2), 'metrics');
  const o = await runFlow(server.origin, flowScenario(ourRate, seconds), 'metrics');
  console.log(
    `jobstorm: ${o.requestsPerSecond.toFixed(0)} req/s (${String(o.requests)} requests, ${String(o.errors)} errors; ${String(ourRate)} arrivals/s, achieved ${((o.achievedRate / ourRate) * 100).toFixed(2)}%, lateness p99 ${o.latenessP99.toFixed(2)} ms) · ${o.cpuUsPerRequest.toFixed(0)} µs/request · ${((o.cpuUsPerRequest * o.requests) / 1e4 / o.wallSeconds).toFixed(0)}% of one core`,
  );
  const ratio = o.requestsPerSecond / a.rps;
  const cpuRatio = (a.cpuSeconds * 1e6) / a.responses / o.cpuUsPerRequest;
  console.log(
    `ratio: ${ratio.toFixed(1)}× Artillery's requests/s (goal ≥ 5×: ${ratio >= 5 ? 'met' : 'MISSED'}); ${cpuRatio.toFixed(1)}× less CPU per request`,
  );
} finally {
  server.stop();
}
