/**
 * Does `--workers 2` scale? Each worker count's sustainable rate is searched for, then compared:
 * the goal is at least 1.7x one worker's (issue 17, goal 4): two worker threads on two cores
 * against one worker on one core.
 *
 * One worker on one core: `--workers 1` runs in the main thread, but V8's collector helpers and
 * libuv's threads run beside it, so unpinned it takes about 1.3 cores of the two, and a ratio
 * taken against that compares 1.3 cores with 2 (1.54x at best even with a target that took no
 * CPU). So the baseline is pinned: jobstorm with `taskset -c 0`, the target with its own core
 * (CPU 1), where it is not the limit. Two workers then run unpinned on both cores, and the
 * target shares them, unpinned, as it would on a user's machine: the two workers pay for the
 * target's CPU, the baseline did not, so the ratio errs against jobstorm. The unpinned
 * `--workers 1` rate is searched too and its ratio printed beside it, for what it is.
 *
 * Sustainable: the highest offered arrival rate (a flow of POST /run then one GET /status) at
 * which jobstorm, with every check on, still achieves >= 95% of the offered requests/s and drops
 * no arrival. Whether the run was marked generator-limited is shown beside it: on a machine whose
 * threads share two cores with the target, the watch marks runs that still keep the pace. The search multiplies the rate by 1.25 while the
 * run keeps up (or divides it while the first rate is missed), then halves the gap between the last
 * rate kept and the first missed, twice. A missed step is run once more before it counts as
 * missed (noise only makes steps miss), and each step prints the steal it saw.
 *
 * The target shares the same two cores, unpinned, as jobstorm does (there are only two): it
 * takes CPU from the generator, more as the rate rises. So the target is nginx when it is
 * installed (Debian's nginx-light; set NGINX to its binary), whose CPU per request is a fraction
 * of a node:http server's; without it, bench/runner-bare-server.ts, and the ratio then says more
 * about the server than about jobstorm. The header printed names which one ran and the machine's
 * load before; CPU = user + sys of the whole jobstorm process (/usr/bin/time).
 *
 * Each step has a warm-up (third argument, seconds, sent but not counted): a cold process at
 * 8,000 requests/s runs behind for its first seconds while the JIT warms up, which would make
 * the search measure start-up rather than what a worker count sustains.
 *
 *   npm run build && npx tsx bench/workers-scaling.ts [seconds per step=8] [start rate=2000] [warm-up=2]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../src/report/summary.js';
import { childrenOf, cpuSecondsOf } from './process-cpu.js';
import { hostTicks, runStatusScenarioYaml, stealShare } from './runner-bench-setup.js';

const seconds = Number(process.argv[2] ?? 8);
const startRate = Number(process.argv[3] ?? 2000);
const warmup = Number(process.argv[4] ?? 2);
const nginx = process.env.NGINX ?? '/usr/sbin/nginx';
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

if (!(seconds > 0) || !(startRate > 0) || !(warmup >= 0 && warmup < seconds)) {
  console.error(
    'usage: npx tsx bench/workers-scaling.ts [seconds per step=8] [start rate=2000] [warm-up=2, shorter than a step]',
  );
  process.exit(2);
}
if (!existsSync(cli) || !existsSync('/usr/bin/time') || !existsSync('/usr/bin/taskset')) {
  console.error('needs a build (npm run build), /usr/bin/time and /usr/bin/taskset');
  process.exit(2);
}
if (cpus().length < 2) {
  console.error('needs two CPUs at least: the baseline pins jobstorm and the target to one each');
  process.exit(2);
}

const HEALTH =
  '{"jobs":{"completed":10,"failed":0,"inProgress":1,"inQueue":2,"retried":0},"workers":{"idle":1,"initializing":0,"running":1,"throttled":0,"unhealthy":0}}';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

interface Target {
  name: string;
  origin: string;
  /** The processes serving, to pin them (nginx's master and its worker). */
  pids(): number[];
  stop(): void;
}

/** Every thread of each process onto `cpuList` ("1", "0,1"). */
async function pin(pids: number[], cpuList: string): Promise<void> {
  for (const pid of pids) {
    const code = await new Promise<number | null>((resolve, reject) => {
      const c = spawn('/usr/bin/taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' });
      c.once('error', reject);
      c.once('close', resolve);
    });
    if (code !== 0) throw new Error(`taskset could not pin process ${String(pid)} to CPU ${cpuList}`);
  }
}

/** nginx answering the flow from its config alone: a fresh id per /run, COMPLETED for /status. */
async function startNginx(dir: string): Promise<Target> {
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  await mkdir(join(dir, 'tmp'), { recursive: true });
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((k) => `${k}_temp_path ${join(dir, 'tmp', k)};`)
    .join(' ');
  await writeFile(
    conf,
    `worker_processes 1; daemon off; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off; ${temp}
  keepalive_requests 100000000; keepalive_timeout 60s;
  server {
    listen 127.0.0.1:${String(port)};
    default_type application/json;
    location = /v2/ep/run { return 200 '{"id":"$request_id","status":"IN_QUEUE"}'; }
    location ~ ^/v2/ep/status/(?<jid>[A-Za-z0-9_-]+)$ { return 200 '{"id":"$jid","status":"COMPLETED","delayTime":3,"executionTime":12,"output":{"ok":true}}'; }
    location = /v2/ep/health { return 200 '${HEALTH}'; }
  }
}
`,
  );
  const child: ChildProcess = spawn(nginx, ['-c', conf, '-p', dir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const origin = `http://127.0.0.1:${String(port)}`;
  for (let i = 0; i < 50; i++) {
    if (child.exitCode !== null)
      throw new Error(`nginx exited (${String(child.exitCode)}); see ${join(dir, 'error.log')}`);
    if (
      await fetch(`${origin}/v2/ep/health`).then(
        (r) => r.ok,
        () => false,
      )
    ) {
      const master = child.pid ?? 0;
      const workers = childrenOf(master);
      return {
        name: 'nginx (1 worker process)',
        origin,
        pids: () => [master, ...workers],
        stop: () => child.kill('SIGTERM'),
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('nginx did not answer');
}

async function startNodeServer(): Promise<Target> {
  const script = fileURLToPath(new URL('./runner-bare-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim()));
  });
  return {
    name: 'node:http bare server (bench/runner-bare-server.ts)',
    origin: `http://127.0.0.1:${port}`,
    pids: () => [child.pid ?? 0],
    stop: () => child.kill('SIGTERM'),
  };
}

interface Step {
  workers: number;
  /** The CPU list jobstorm was pinned to, if it was. */
  pinned?: string;
  rate: number;
  rps: number;
  cpuSeconds: number;
  dropped: number;
  limited: boolean;
  kept: boolean;
  /** The hypervisor's share of the machine's CPU during the step, 0..1, where it can be read. */
  steal: number | undefined;
  /** The target's CPU seconds during the step, where /proc can be read. */
  targetCpuSeconds: number | undefined;
}

function timedRun(
  args: string[],
  cpuList?: string,
): Promise<{ code: number | null; cpuSeconds: number; stderr: string }> {
  const command = [
    ...(cpuList === undefined ? [] : ['/usr/bin/taskset', '-c', cpuList]),
    process.execPath,
    cli,
    ...args,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%U %S', ...command], {
      env: { ...process.env, JOBSTORM_API_KEY: 'bench-key' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const [user = Number.NaN, sys = Number.NaN] = (stderr.trim().split('\n').pop() ?? '')
        .split(' ')
        .map(Number);
      resolve({ code, cpuSeconds: user + sys, stderr });
    });
  });
}

async function step(
  dir: string,
  target: Target,
  workers: number,
  rate: number,
  pinned?: string,
): Promise<Step> {
  const origin = target.origin;
  const scenario = join(dir, `w${String(workers)}-${String(rate)}.yaml`);
  const out = join(dir, `out-w${String(workers)}-${String(rate)}`);
  await writeFile(scenario, runStatusScenarioYaml('workers-scaling', rate, seconds, warmup));
  const ticks = hostTicks();
  const targetBefore = cpuSecondsOf(target.pids());
  const t = await timedRun(
    [
      'run',
      scenario,
      '--target',
      `${origin}/v2/ep`,
      '--no-preflight',
      '--quiet',
      '--workers',
      String(workers),
      '--out',
      out,
    ],
    pinned,
  );
  const targetAfter = cpuSecondsOf(target.pids());
  const targetCpuSeconds =
    targetBefore === undefined || targetAfter === undefined ? undefined : targetAfter - targetBefore;
  const file = join(out, 'summary.json');
  if (!existsSync(file))
    throw new Error(`no summary.json (exit ${String(t.code)}):\n${t.stderr.slice(-2000)}`);
  const s = JSON.parse(await readFile(file, 'utf8')) as Summary;
  const requests = (s.operations.run?.requests ?? 0) + (s.operations.status?.requests ?? 0);
  // The warm-up's requests are not in the summary's counts, so neither is its time.
  const rps = requests / (Math.max(seconds, s.run.durationMs / 1000) - warmup);
  const limited = s.verdict.generatorLimited === true;
  const dropped = s.dropped.total;
  const kept = rps >= 0.95 * 2 * rate && dropped === 0;
  await rm(out, { recursive: true, force: true });
  return {
    workers,
    ...(pinned === undefined ? {} : { pinned }),
    rate,
    rps,
    cpuSeconds: t.cpuSeconds,
    dropped,
    limited,
    kept,
    steal: stealShare(ticks, hostTicks()),
    targetCpuSeconds,
  };
}

/** The highest rate kept: up by 1.25x while kept, then two halvings of the gap. */
async function sustainable(
  dir: string,
  target: Target,
  workers: number,
  from: number,
  pinned?: string,
): Promise<Step | undefined> {
  const show = (s: Step): void =>
    console.log(
      `  workers ${String(s.workers)}${s.pinned === undefined ? '' : ` on CPU ${s.pinned}`}  ${String(s.rate).padStart(6)} arr/s  ${s.rps.toFixed(0).padStart(7)} req/s  CPU ${s.cpuSeconds.toFixed(2).padStart(6)} s  ${s.kept ? 'kept up' : `missed (${[s.rps < 0.95 * 2 * s.rate ? 'fell behind' : '', s.dropped > 0 ? `${String(s.dropped)} dropped` : ''].filter(Boolean).join(', ')})`}${s.limited ? ', marked generator-limited' : ''}${s.steal === undefined ? '' : `  (steal ${(s.steal * 100).toFixed(1)}%)`}${s.targetCpuSeconds === undefined ? '' : `  target CPU ${s.targetCpuSeconds.toFixed(2)} s`}`,
    );
  // Noise only ever makes a step miss: a hypervisor's burst of steal, a collection at a bad moment.
  // A step kept is a rate shown sustained, so a missed step is tried once more before it counts,
  // for both worker counts alike.
  const attempt = async (rate: number): Promise<Step> => {
    const first = await step(dir, target, workers, rate, pinned);
    show(first);
    if (first.kept) return first;
    const again = await step(dir, target, workers, rate, pinned);
    show(again);
    return again.kept ? again : first;
  };
  let best: Step | undefined;
  let missed: number | undefined;
  for (let rate = from; missed === undefined && rate < 200_000; rate = Math.round(rate * 1.25)) {
    const s = await attempt(rate);
    if (s.kept) best = s;
    else missed = rate;
  }
  // Missed at the first rate already (a noisy moment, or a start too high): down by 1.25x until kept.
  for (let rate = Math.round(from / 1.25), i = 0; !best && i < 6; rate = Math.round(rate / 1.25), i++) {
    const s = await attempt(rate);
    if (s.kept) best = s;
    else missed = rate;
  }
  for (let i = 0; i < 2 && best && missed !== undefined; i++) {
    const rate = Math.round((best.rate + missed) / 2);
    const s = await attempt(rate);
    if (s.kept) best = s;
    else missed = rate;
  }
  return best;
}

const dir = await mkdtemp(join(tmpdir(), 'jobstorm-workers-scaling-'));
const target = existsSync(nginx) ? await startNginx(dir) : await startNodeServer();
/** CPU per request of the whole jobstorm process, start-up and warm-up included (so a little high). */
const perRequest = (s: Step): number => (s.cpuSeconds * 1e6) / (s.rps * (seconds - warmup));
const describe = (label: string, s: Step): string =>
  `${label}: ${s.rps.toFixed(0)} req/s (${String(s.rate)} arrivals/s)${s.limited ? ', marked generator-limited' : ''}; CPU ${(s.cpuSeconds / seconds).toFixed(2)} cores, ${perRequest(s).toFixed(0)} µs per request`;
try {
  console.log(
    `target: ${target.name}; ${String(cpus().length)} CPUs; ${String(seconds)} s per step, the first ${String(warmup)} s a warm-up`,
  );
  console.log(
    `load average before: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log('\none worker on one core: jobstorm on CPU 0, the target on CPU 1');
  await pin(target.pids(), '1');
  const one = await sustainable(dir, target, 1, startRate, '0');
  console.log('\ntwo workers on two cores: jobstorm and the target share CPUs 0 and 1, unpinned');
  await pin(target.pids(), '0,1');
  const two = await sustainable(dir, target, 2, one?.rate ?? startRate);
  console.log(
    '\none worker, unpinned (its collector threads take part of the second core), the target sharing',
  );
  const loose = await sustainable(dir, target, 1, one?.rate ?? startRate);
  console.log('');
  if (one) console.log(describe('--workers 1 on one core', one));
  if (loose) console.log(describe('--workers 1 unpinned   ', loose));
  if (two) console.log(describe('--workers 2 on two cores', two));
  if (!one || !two) console.log('no rate was kept up; start lower');
  else {
    const r = two.rps / one.rps;
    console.log(
      `goal: --workers 2 on two cores ÷ --workers 1 on one core = ${r.toFixed(2)} (goal ≥ 1.7; the two workers also gave the target its CPU): ${r >= 1.7 ? 'PASS' : 'MISS'}`,
    );
    // The ceiling this machine allows: the baseline had one core to itself, the two workers have
    // what the target leaves of all of them. Per request they cannot do better than one worker, so
    // their rate is at most that many times the baseline's.
    if (two.targetCpuSeconds !== undefined) {
      const targetCores = two.targetCpuSeconds / seconds;
      console.log(
        `the target used ${targetCores.toFixed(2)} cores beside the two workers, so on ${String(cpus().length)} cores they could reach at most ${(cpus().length - targetCores).toFixed(2)}x the one-core rate; they reached ${r.toFixed(2)}x, ${((r / (cpus().length - targetCores)) * 100).toFixed(0)}% of that ceiling`,
      );
    }
    if (loose)
      console.log(
        `beside it: ÷ --workers 1 unpinned = ${(two.rps / loose.rps).toFixed(2)} (that one worker already had ${(loose.cpuSeconds / seconds).toFixed(2)} cores)`,
      );
    // When a second thread costs about what one does per request, the threads add little work of
    // their own, and what limits the ratio is cores (shared with the target here).
    console.log(
      `CPU per request, two workers vs one on one core: ${(((perRequest(two) - perRequest(one)) / perRequest(one)) * 100).toFixed(0)}%`,
    );
  }
} finally {
  target.stop();
  await rm(dir, { recursive: true, force: true });
}
