import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/core/manual-clock.js';
import type { JobstormRecord } from '../../src/core/record.js';
import type { Summary } from '../../src/report/summary.js';
import { cliClock, runCliOnClock } from '../helpers/cli-on-clock.js';
import { captureIo, type CapturedIo } from '../helpers/cli-io.js';
import { expectRealEvidence } from './foreign-run.js';
import { startPartialServer, type PartialOptions, type PartialServer } from './partial-server.js';

/**
 * Verdicts against servers that are not our emulator (issue "Verdicts that hold on any target"):
 * each run goes through the CLI as a user's would, and every report file is read back. The server
 * is in this thread and reads the run's manual clock (issue 46): its jobs, cold spells, stalls and
 * rate windows pass as fast as loopback answers, and read the same on a loaded machine.
 */
interface Outcome {
  code: number;
  summary: Summary;
  md: string;
  html: string;
  junit: string;
  records: JobstormRecord[];
  stderr: string;
  fired: string[];
}

let server: PartialServer | undefined;
let clock: ManualClock = cliClock();
beforeEach(() => {
  clock = cliClock();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A partial server on this test's clock. */
const serve = (o: PartialOptions = {}): Promise<PartialServer> => startPartialServer({ ...o, clock });

/** The CLI in-process on this test's clock, which the server reads too. */
const cli = (argv: string[], io: CapturedIo): Promise<number> => runCliOnClock(argv, io, { clock });

async function runAgainst(
  base: string,
  scenario: string,
  args: string[] = [],
  env: Record<string, string> = { JOBSTORM_API_KEY: 'foreign-test-key' },
): Promise<Outcome> {
  const out = mkdtempSync(join(tmpdir(), 'jobstorm-foreign-'));
  const io = captureIo(env);
  const code = await cli(
    ['run', scenario, '--target', base, '--out', out, '--record', '--quiet', ...args],
    io,
  );
  const read = (f: string): string => readFileSync(join(out, f), 'utf8');
  const summary = JSON.parse(read('summary.json')) as Summary;
  const records = read('records.ndjson')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JobstormRecord);
  return {
    code,
    summary,
    md: read('summary.md'),
    html: read('report.html'),
    junit: read('junit.xml'),
    records,
    stderr: io.stderr.join('\n'),
    fired: summary.violations.map((v) => v.id).sort(),
  };
}

/** A scenario file of one flow, `run` then `poll` until final, at 10 arrivals/s for `duration`. */
function runAndPollScenario(name: string, duration: string, thresholds: string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), `jobstorm-${name}-`)), `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
phases: [{ duration: ${duration}, rate: 10 }]
flows:
  - name: run-and-poll
    steps:
      - run: { input: { prompt: "x" } }
      - poll: { until: final, interval: 100ms, timeout: 2s }
thresholds: ${JSON.stringify(thresholds)}
`,
  );
  return file;
}

function expectVerdictEverywhere(o: Outcome, status: string): void {
  expect(o.summary.verdict.status).toBe(status);
  expect(o.md).toContain(`**${status.toUpperCase()}**`);
  expect(o.html).toContain(`class="verdict verdict-${status}"`);
  expect(o.junit).toContain(`<property name="verdict" value="${status}"/>`);
}

const requestsOf = (o: Outcome, op: string): number =>
  o.records.filter((r) => r.type === 'exchange' && r.op === op).length;

describe('a target without /cancel, /retry, /health and /purge-queue (404 {"detail":"Not Found"})', () => {
  const missing: PartialOptions = { missing: ['cancel', 'retry', 'health', 'purge-queue'], jobMs: 300 };

  it('cancel-storm: one route.missing per operation, no lost jobs, and the cancels stop', async () => {
    server = await serve(missing);
    const o = await runAgainst(server.base, 'scenarios/cancel-storm.yaml', ['--duration', '3s']);
    expect(o.fired).toEqual(['route.missing']);
    const missingOps = o.summary.violations[0]?.examples.map((e) => e.op).sort();
    expect(missingOps).toContain('cancel');
    expect(o.summary.violations[0]?.examples.find((e) => e.op === 'cancel')?.message).toContain(
      'showed to exist',
    );
    // Found once, then not sent again: far fewer cancels than the 80 iterations that have one.
    expect(requestsOf(o, 'cancel')).toBeLessThan(10);
    expect(o.summary.coverage['lifecycle.lost']).toBeGreaterThan(0);
    expectRealEvidence(o);
    expectVerdictEverywhere(o, 'failed');
    expect(o.code).toBe(1);
  }, 90_000);

  it('smoke: /health is reported missing once, not as an error body per answer', async () => {
    server = await serve(missing);
    const o = await runAgainst(server.base, 'scenarios/smoke.yaml', ['--duration', '3s']);
    expect(o.fired).toEqual(['route.missing']);
    expect(o.summary.violations[0]?.examples.map((e) => e.op)).toEqual(['health']);
    expect(o.summary.preflight?.find((p) => p.check === 'health')?.ok).toBe(false);
    expectRealEvidence(o);
  }, 90_000);
});

describe('a target that serves /status and /stream only to POST (405, Allow: POST)', () => {
  it('smoke --strict: request.method names the allowed methods; polls stop at once instead of running to their timeout', async () => {
    server = await serve({ postOnly: ['status', 'stream', 'status-sync'] });
    const o = await runAgainst(server.base, 'scenarios/smoke.yaml', ['--duration', '3s', '--strict']);
    // Served, to the wrong method: not "missing", and nothing about unknown jobs from a refused GET.
    expect(o.fired).toEqual(['request.method']);
    const status = o.summary.violations[0]?.examples.find((e) => e.op === 'status');
    expect(status?.message).toContain('Allow: POST');
    // The preflight's GET /status is the one that shows it: not one poll per job after that.
    expect(requestsOf(o, 'status')).toBeLessThanOrEqual(2);
    expect(o.fired).not.toContain('lifecycle.lost');
    expectRealEvidence(o);
  }, 90_000);
});

describe('what partial servers get wrong, found by the requests probe in smoke (issue 13)', () => {
  it('unknown job answered 200 FAILED, input optional, /stream GET answered 404 "Cannot GET" while POST works', async () => {
    server = await serve({
      unknownJobFound: true,
      inputOptional: true,
      postOnly404: ['stream'],
    });
    const o = await runAgainst(server.base, 'scenarios/smoke.yaml', ['--duration', '3s', '--no-preflight']);
    expect(o.fired).toEqual(['request.method', 'request.missing-input', 'request.unknown-job']);
    const byId = new Map(o.summary.violations.map((v) => [v.id, v]));
    expect(byId.get('request.unknown-job')?.examples[0]?.message).toContain(
      'with status FAILED in its body; the contract says 404',
    );
    expect(byId.get('request.missing-input')?.examples[0]?.message).toMatch(
      /body without input was answered 200; the contract says 400/,
    );
    const method = byId.get('request.method')?.examples.map((e) => e.message) ?? [];
    expect(method.join('\n')).toMatch(
      /answered 404 to GET \/stream\/\S+, while POST to the same path answered 200/,
    );
    // The refused GETs are method findings, not lost jobs.
    expect(o.fired).not.toContain('lifecycle.lost');
    expectRealEvidence(o);
    expect(o.code).toBe(1);
  }, 90_000);

  it('the same probe is silent on a server that gets them right', async () => {
    server = await serve({});
    const o = await runAgainst(server.base, 'scenarios/smoke.yaml', ['--duration', '3s']);
    expect(o.fired).toEqual([]);
    for (const id of ['request.unknown-job', 'request.missing-input', 'request.method'])
      expect(o.summary.coverage[id], id).toBeGreaterThan(0);
  }, 90_000);
});

describe('a local server: operations at the root, no authentication', () => {
  it('--routes root --auth none: the only finding is that the target takes requests without a key, once', async () => {
    server = await serve({ root: true });
    const o = await runAgainst(
      server.base,
      'scenarios/smoke.yaml',
      ['--duration', '3s', '--routes', 'root', '--auth', 'none'],
      {},
    );
    expect(o.fired).toEqual(['auth.missing-key-accepted']);
    expect(o.summary.violations[0]?.count).toBe(1);
    expect(o.summary.jobs.byState.COMPLETED).toBeGreaterThan(0);
    expectRealEvidence(o);
  }, 90_000);

  it('without --routes root the base URL is refused before anything is sent, saying what to add', async () => {
    server = await serve({ root: true });
    const io = captureIo({});
    const code = await cli(
      ['run', 'scenarios/smoke.yaml', '--target', server.base, '--auth', 'none', '--quiet'],
      io,
    );
    expect(code).toBe(2);
    expect(io.stderr.join('\n')).toContain('--routes root');
    expect(server.requests).toBe(0);
  });
});

describe('a target whose /run answers IN_PROGRESS and whose /runsync ignores ?wait', () => {
  it('smoke: schema.run is the true finding; nothing about the jobs is made up', async () => {
    server = await serve({ runStatus: 'IN_PROGRESS', ignoreWait: true });
    const o = await runAgainst(server.base, 'scenarios/smoke.yaml', ['--duration', '3s']);
    expect(o.fired).toEqual(['schema.run']);
    expectRealEvidence(o);
  }, 90_000);
});

describe('runs that could not judge anything say so, with their own verdict and exit code', () => {
  it('a wrong endpoint id (every answer 404) is inconclusive, exit 4, in every report', async () => {
    server = await serve({ endpointId: 'right' });
    const o = await runAgainst(`${server.url}/v2/wrong`, 'scenarios/smoke.yaml', ['--duration', '2s']);
    expect(o.code).toBe(4);
    expectVerdictEverywhere(o, 'inconclusive');
    expect(o.summary.verdict.reasons.join(' ')).toContain('no job was accepted');
    expect(o.fired.filter((id) => id.startsWith('lifecycle.'))).toEqual([]);
  }, 90_000);

  it('a wrong key is found by the preflight: exit 2 after two requests, the cause named', async () => {
    server = await serve({ apiKey: 'right' });
    const io = captureIo({ JOBSTORM_API_KEY: 'wrong' });
    const code = await cli(
      [
        'run',
        'scenarios/smoke.yaml',
        '--target',
        server.base,
        '--quiet',
        '--out',
        mkdtempSync(join(tmpdir(), 'jobstorm-key-')),
      ],
      io,
    );
    expect(code).toBe(2);
    expect(io.stderr.join('\n')).toContain('the key was refused by');
    expect(server.requests).toBe(2);
  }, 60_000);

  it('a wrong key without the preflight: inconclusive (the key was refused), never auth.form-rejected', async () => {
    server = await serve({ apiKey: 'right' });
    const o = await runAgainst(server.base, 'scenarios/smoke.yaml', ['--duration', '2s', '--no-preflight'], {
      JOBSTORM_API_KEY: 'wrong',
    });
    expect(o.code).toBe(4);
    expectVerdictEverywhere(o, 'inconclusive');
    expect(o.summary.verdict.reasons.join(' ')).toContain('the key was refused');
    expect(o.fired).not.toContain('auth.form-rejected');
  }, 90_000);

  it('a refused port is unreachable, exit 3, and its latency threshold is not a pass', async () => {
    server = await serve();
    const base = server.base;
    await server.close();
    server = undefined;
    const o = await runAgainst(base, 'scenarios/smoke.yaml', ['--duration', '2s']);
    expect(o.code).toBe(3);
    expectVerdictEverywhere(o, 'unreachable');
    expect(o.summary.thresholds.find((t) => t.expression === 'p99(run) < 500ms')?.ok).toBe(false);
  }, 90_000);

  it('an interrupted run is marked interrupted (partial results), exit 130, in every report', async () => {
    server = await serve();
    const out = mkdtempSync(join(tmpdir(), 'jobstorm-int-'));
    const io = captureIo({ JOBSTORM_API_KEY: 'foreign-test-key' });
    // Ctrl-C 1.5 s into the run, on its clock.
    const code = await runCliOnClock(
      ['run', 'scenarios/steady-load.yaml', '--target', server.base, '--out', out, '--quiet'],
      io,
      { clock, onClock: (c) => c.schedule(1500, () => io.controller.abort()) },
    );
    expect(code).toBe(130);
    const read = (f: string): string => readFileSync(join(out, f), 'utf8');
    const o = {
      summary: JSON.parse(read('summary.json')) as Summary,
      md: read('summary.md'),
      html: read('report.html'),
      junit: read('junit.xml'),
    } as Outcome;
    expectVerdictEverywhere(o, 'interrupted');
    expect(o.summary.verdict.reasons[0]).toContain('partial');
  }, 90_000);
});

describe('a target that drops connections under load (every 5th /status reset, no answer)', () => {
  // Resets break no contract rule and come back fast: only the unanswered share can fail the run.
  it('fails, naming the share and the kind, in every report; its thresholds all held', async () => {
    server = await serve({ resetEvery: 5, jobMs: 300 });
    const o = await runAgainst(server.base, 'scenarios/steady-load.yaml', ['--duration', '3s']);
    expect(o.code, o.stderr).toBe(1);
    expectVerdictEverywhere(o, 'failed');
    const resets = o.records.filter((r) => r.type === 'exchange' && r.error?.kind === 'reset').length;
    expect(resets).toBeGreaterThan(0);
    expect(o.summary.errors.reset).toBe(resets);
    const reason = o.summary.verdict.reasons.find((r) => r.includes('without a usable answer'));
    expect(reason).toMatch(
      new RegExp(
        `^the target left ${String(resets)} of \\d+ requests \\([\\d.]+%\\) without a usable answer \\(reset ${String(resets)}\\)`,
      ),
    );
    expect(o.md).toContain(reason);
    expect(o.junit).toContain('without a usable answer');
    expect(
      o.summary.thresholds.every((t) => t.ok),
      JSON.stringify(o.summary.thresholds),
    ).toBe(true);
  }, 90_000);

  it('a threshold of its own on errors decides instead: a generous one passes', async () => {
    server = await serve({ resetEvery: 5, jobMs: 300 });
    const o = await runAgainst(server.base, 'scenarios/steady-load.yaml', [
      '--duration',
      '3s',
      '--threshold',
      'rate(errors) < 50%',
    ]);
    expect(o.summary.errors.reset ?? 0).toBeGreaterThan(0);
    expect(o.summary.verdict.reasons.join(' ')).not.toContain('without a usable answer');
    expect(o.code, o.summary.verdict.reasons.join('\n')).toBe(0);
  }, 90_000);
});

describe('a target that takes jobs and never runs them (a queue without workers)', () => {
  it('is inconclusive (exit 4), never a pass: no rule about how jobs end was judged', async () => {
    server = await serve({ jobMs: 1e9 });
    const scenario = runAndPollScenario('stuck', '2s', ['violations == 0', 'p99(run) < 500ms']);
    const o = await runAgainst(server.base, scenario, ['--no-preflight']);
    expect(o.code, o.summary.verdict.reasons.join('\n')).toBe(4);
    expectVerdictEverywhere(o, 'inconclusive');
    expect(o.summary.jobs.submitted).toBeGreaterThan(10);
    expect(o.summary.jobs.unfinished).toBe(o.summary.jobs.submitted);
    // Every poll was answered, fast and well-formed; the thresholds held.
    expect(o.summary.thresholds.every((t) => t.ok)).toBe(true);
    expect(o.summary.verdict.reasons[0]).toMatch(
      /^no job finished: \d+ accepted and followed, none seen COMPLETED/,
    );
    expect(o.md).toContain('no job finished');
  }, 90_000);
});

describe('a target that starts cold (answers 400 ms late for its first second), and the warm-up', () => {
  const scenarioFile = (): string => runAndPollScenario('cold', '3s', ['p99(run) < 350ms']);

  it('fails its latency threshold on the cold start without a warm-up', async () => {
    server = await serve({ cold: { ms: 1000, delayMs: 400 } });
    const o = await runAgainst(server.base, scenarioFile(), ['--no-preflight']);
    expect(o.code, o.summary.verdict.reasons.join('\n')).toBe(1);
    expect(o.summary.thresholds.find((t) => t.expression === 'p99(run) < 350ms')?.ok).toBe(false);
    expect(o.summary.warmup).toBeUndefined();
  }, 90_000);

  it('--warmup 1.5s: the cold start is sent and checked but not measured, and the report says so', async () => {
    server = await serve({ cold: { ms: 1000, delayMs: 400 } });
    const o = await runAgainst(server.base, scenarioFile(), ['--no-preflight', '--warmup', '1.5s']);
    expect(o.code, o.summary.verdict.reasons.join('\n')).toBe(0);
    expectVerdictEverywhere(o, 'passed');
    const exchanges = o.records.filter((r) => r.type === 'exchange');
    const warm = exchanges.filter((r) => r.intendedAt < 1500);
    expect(warm.length).toBeGreaterThan(10);
    // The warm-up's requests are in the timeline and nowhere else.
    expect(o.summary.warmup).toEqual({ ms: 1500, requests: warm.length, dropped: 0 });
    const measured = Object.values(o.summary.operations).reduce((n, op) => n + op.requests, 0);
    expect(measured).toBe(exchanges.length - warm.length);
    expect(o.summary.series.requests.reduce((a, b) => a + b, 0)).toBe(exchanges.length);
    // Below the cold answers (400 ms at least), so the threshold tells them apart; on the run's
    // clock the warm answers take what loopback takes in clock time: next to nothing.
    expect(o.summary.operations.run?.latency.max).toBeLessThan(350);
    // Jobs submitted in the warm-up are not followed; the measured ones all finished.
    const submittedAfter = exchanges.filter(
      (r) => r.op === 'run' && r.intendedAt >= 1500 && r.status === 200,
    ).length;
    expect(o.summary.jobs.submitted).toBe(submittedAfter);
    expect(o.summary.jobs.byState.COMPLETED).toBe(submittedAfter);
    expect(o.md).toContain('warm-up: the first 1.50s were sent and checked but not measured');
    expect(o.html).toContain('warm-up: the first 1.50s were sent and checked but not measured');
    expect(o.junit).toContain('<property name="warmup-ms" value="1500"/>');
  }, 90_000);

  it('a contract violation in the warm-up still fails the run, citing the warm-up record', async () => {
    server = await serve({ cold: { ms: 1000, delayMs: 400, runStatus: 'STARTING' } });
    const o = await runAgainst(server.base, scenarioFile(), ['--no-preflight', '--warmup', '1.5s']);
    expect(o.code, o.summary.verdict.reasons.join('\n')).toBe(1);
    expect(o.summary.thresholds.every((t) => t.ok)).toBe(true);
    expect(o.fired.length).toBeGreaterThan(0);
    expectRealEvidence(o);
    const cited = o.summary.violations.flatMap((v) => v.examples.map((e) => e.evidence.seq));
    const bySeq = new Map(o.records.flatMap((r) => (r.type === 'exchange' ? [[r.seq, r] as const] : [])));
    expect(cited.some((seq) => (bySeq.get(seq ?? -1)?.intendedAt ?? Infinity) < 1500)).toBe(true);
  }, 90_000);

  it('a warm-up as long as the run is refused before anything is sent', async () => {
    server = await serve();
    const io = captureIo({ JOBSTORM_API_KEY: 'foreign-test-key' });
    const code = await cli(['run', scenarioFile(), '--target', server.base, '--warmup', '3s', '--quiet'], io);
    expect(code).toBe(2);
    expect(io.stderr.join('\n')).toContain(
      '--warmup: must be shorter than the phases (3s in all), or nothing is measured',
    );
    expect(server.requests).toBe(0);
  }, 30_000);
});

describe('a rate-limited target that stops reading for 2.5 s (counts /run when it reads it)', () => {
  it('its 429s are not called early: requests sent before the window but read inside it count; findings cite real records', async () => {
    // 1000 /run per 10 s, as the contract's. 150/s for 3 s, of which the 375 sent in the stall are
    // read at t+3 s, then 75/s: the service's window fills near t+11.3 s, when only about 900
    // requests were SENT in the 10 s before. Counting by send time called those 429s early.
    server = await serve({ runLimit: 1000, stall: { fromMs: 500, untilMs: 3000 } });
    const file = join(mkdtempSync(join(tmpdir(), 'jobstorm-stalled-limit-')), 'stalled-limit.yaml');
    writeFileSync(
      file,
      'name: stalled-limit\nphases: [{ duration: 3s, rate: 150 }, { duration: 9s, rate: 75 }]\nflows:\n  - name: submit\n    steps:\n      - run: { input: { prompt: "x" } }\n',
    );
    const o = await runAgainst(server.base, file, ['--exclusive-endpoint']);
    // The limit was reached, and after the stall: there were 429s to judge.
    const throttled = o.records.filter((r) => r.type === 'exchange' && r.op === 'run' && r.status === 429);
    expect(throttled.length).toBeGreaterThan(0);
    expect(o.summary.coverage['ratelimit.early']).toBeGreaterThan(0);
    expect(o.summary.violations.map((v) => `${v.id}: ${v.examples[0]?.message ?? ''}`)).toEqual([]);
    expectRealEvidence(o);
  }, 60_000);
});

describe('a target whose /runsync holds each request almost its whole wait, behind one connection', () => {
  it('calls queued behind the busy connection are judged from when they went onto it: no runsync-wait-exceeded', async () => {
    // Each /runsync is answered 900 ms after it is read (wait 1 s); with one connection, the
    // fourth waits about 2.7 s for it first, 3.6 s from its intended start to its answer.
    server = await serve({ jobMs: 900 });
    const file = join(mkdtempSync(join(tmpdir(), 'jobstorm-held-runsync-')), 'held-runsync.yaml');
    writeFileSync(
      file,
      'name: held-runsync\ntarget: { connections: 1, timeout: 20s }\nphases: [{ duration: 400ms, rate: 10 }]\nflows:\n  - name: sync\n    steps:\n      - runsync: { input: { prompt: "x" }, wait: 1s }\n',
    );
    const o = await runAgainst(server.base, file, ['--no-preflight']);
    const sync = o.records.filter((r) => r.type === 'exchange' && r.op === 'runsync');
    expect(sync.length).toBeGreaterThanOrEqual(4);
    const longest = Math.max(...sync.map((r) => (r.type === 'exchange' ? r.endAt - r.intendedAt : 0)));
    expect(longest).toBeGreaterThan(3000);
    // The report says they waited for the one connection, and how long.
    expect(o.summary.run.connectionWait?.arrivals).toBeGreaterThanOrEqual(2);
    expect(o.summary.run.connectionWait?.connections).toBe(1);
    expect(o.summary.run.connectionWait?.longestMs).toBeGreaterThan(1500);
    // A call not final by its answer is followed by /status-sync, judged too.
    expect(o.summary.coverage['lifecycle.runsync-wait-exceeded']).toBeGreaterThanOrEqual(sync.length);
    expect(o.fired).not.toContain('lifecycle.runsync-wait-exceeded');
    expectRealEvidence(o);
  }, 60_000);
});
