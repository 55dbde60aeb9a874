/**
 * Flow mode at a fixed open rate (issue 4, "Speed": ≥ 5,000 HTTP requests/s on one core with
 * achieved/target rate within 1% and scheduling lateness p99 < 5 ms). Each arrival is `run`, then
 * `poll` until final; the bare server finishes a job on its second poll, so an arrival is three
 * requests. The runner is the real one (schedule, flows, client, records) with the sinks of
 * `jobstorm run --no-check` (metrics) or of a default run (metrics + live checks).
 *
 *   npx tsx bench/runner-flow.ts [arrivalsPerSecond=1700] [seconds=10] [sink=metrics|checks|none] [pollIntervalMs=20]
 */
import {
  canPin,
  flowScenario,
  pinSelf,
  runFlow,
  startFlowServer,
  timerNoise,
  type Sink,
} from './runner-bench-setup.js';

const rate = Number(process.argv[2] ?? 1700);
const seconds = Number(process.argv[3] ?? 10);
const sink = (process.argv[4] ?? 'metrics') as Sink;
const pollIntervalMs = Number(process.argv[5] ?? 20);

const pinned = pinSelf();
const server = await startFlowServer();
try {
  // Warm-up: JIT, connections, the server's own warm-up.
  await runFlow(server.origin, flowScenario(Math.min(rate, 1000), 2, { pollIntervalMs }), sink);
  const noise = await timerNoise();
  const r = await runFlow(server.origin, flowScenario(rate, seconds, { pollIntervalMs }), sink);
  console.log(
    `pinned: ${pinned && canPin ? 'runner CPU 0, server CPU 1' : 'no (taskset unavailable)'}; sinks: ${sink}; poll interval ${String(pollIntervalMs)} ms`,
  );
  console.log(
    `target ${String(rate)} arrivals/s for ${String(seconds)} s (≈${String(rate * 3)} HTTP req/s: run + 2 polls)`,
  );
  console.log(
    `arrivals: ${String(r.arrivals)} sent of ${String(r.scheduled)} scheduled, ${String(r.dropped)} dropped; achieved rate ${r.achievedRate.toFixed(1)}/s = ${((r.achievedRate / rate) * 100).toFixed(2)}% of target`,
  );
  console.log(
    `HTTP: ${r.requestsPerSecond.toFixed(0)} req/s completed during the phase (${String(r.requests)} in all, ${String(r.errors)} errors)`,
  );
  console.log(
    `scheduling lateness (sent − intended): p50 ${r.latenessP50.toFixed(2)} ms, p99 ${r.latenessP99.toFixed(2)} ms (runner's own p99 ${r.outcome.latenessP99Ms.toFixed(1)} ms)`,
  );
  console.log(
    `  event-loop delay p99 during the run ${r.loopDelayP99.toFixed(2)} ms; this CPU's idle timer noise: p50 ${noise.p50.toFixed(2)} ms, p99 ${noise.p99.toFixed(2)} ms`,
  );
  console.log(
    `runner CPU: ${r.cpuUsPerRequest.toFixed(1)} µs/request, ${((r.cpuUsPerRequest * r.requests) / 1e4 / r.wallSeconds).toFixed(0)}% of one core over ${r.wallSeconds.toFixed(1)} s`,
  );
  const ok =
    r.requestsPerSecond >= 5000 &&
    Math.abs(r.achievedRate / rate - 1) <= 0.01 &&
    r.arrivals + r.dropped === r.scheduled &&
    r.dropped === 0 &&
    r.latenessP99 < 5;
  console.log(
    `goal (≥ 5,000 req/s, rate within 1%, no drops, lateness p99 < 5 ms): ${ok ? 'met' : 'MISSED'}`,
  );
} finally {
  server.stop();
}
