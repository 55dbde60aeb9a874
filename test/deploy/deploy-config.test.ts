import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadScenario } from '../../src/scenario/index.js';

/*
 * deploy/ holds configuration nobody runs in this repository's CI: a GitHub workflow and Kubernetes
 * manifests. This test parses them and runs their shell scripts with a stand-in for jobstorm that
 * records its arguments, so the shard arithmetic (matrix entry or completion index → `--shard i/n`),
 * the report folders and the merge command are checked, not just present.
 */

const root = new URL('../../', import.meta.url).pathname;
const deploy = join(root, 'deploy');

type Obj = Record<string, unknown>;

function obj(v: unknown, what: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new Error(`${what}: expected a mapping, got ${JSON.stringify(v)}`);
  return v as Obj;
}

function arr(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`${what}: expected a list, got ${JSON.stringify(v)}`);
  return v;
}

function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new Error(`${what}: expected a string, got ${JSON.stringify(v)}`);
  return v;
}

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Obj;
  env?: Record<string, string>;
}

/** Replaces `${{ … }}` expressions the way Actions would for one matrix entry. */
function expand(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    const v = values[expr];
    if (v === undefined) throw new Error(`no value for \${{ ${expr} }} in ${text.slice(0, 80)}`);
    return v;
  });
}

/** A `jobstorm`/`npx` stand-in: appends its arguments to $CALLS and exits with $FAKE_CODE. */
async function fakeBin(dir: string, name: string): Promise<void> {
  const path = join(dir, name);
  await writeFile(path, '#!/bin/sh\necho "$*" >> "$CALLS"\nexit "${FAKE_CODE:-0}"\n');
  await chmod(path, 0o755);
}

interface ShellResult {
  code: number;
  calls: string[];
  stdout: string;
  stderr: string;
}

async function sh(
  shell: 'bash' | 'sh',
  script: string,
  env: Record<string, string>,
  cwd: string,
  bin: string,
): Promise<ShellResult> {
  const calls = join(cwd, `calls-${String(Math.random()).slice(2)}`);
  await writeFile(calls, '');
  const result = await promisify(execFile)(shell, ['-c', script], {
    cwd,
    env: { PATH: `${bin}:/usr/bin:/bin`, CALLS: calls, ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: unknown) => {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    },
  );
  const lines = (await readFile(calls, 'utf8')).split('\n').filter((l) => l.length > 0);
  return { ...result, calls: lines };
}

function globMatches(glob: string, name: string): boolean {
  return new RegExp(
    `^${glob
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(name);
}

describe('deploy/github-actions: nightly.yml calling jobstorm-scenario.yml', () => {
  let wf: Obj;
  let called: Obj;
  let shardJob: Obj;
  let mergeJob: Obj;
  let bin = '';
  let work = '';

  beforeAll(async () => {
    wf = obj(parse(await readFile(join(deploy, 'github-actions/nightly.yml'), 'utf8')), 'workflow');
    called = obj(
      parse(await readFile(join(deploy, 'github-actions/jobstorm-scenario.yml'), 'utf8')),
      'called workflow',
    );
    const jobs = obj(called.jobs, 'jobs');
    shardJob = obj(jobs.shard, 'jobs.shard');
    mergeJob = obj(jobs.merge, 'jobs.merge');
    work = await mkdtemp(join(tmpdir(), 'jobstorm-deploy-'));
    bin = join(work, 'bin');
    await mkdir(bin);
    await fakeBin(bin, 'npx');
  });

  const steps = (job: Obj): Step[] => arr(job.steps, 'steps') as Step[];
  const matrix = (job: Obj): Obj => obj(obj(job.strategy, 'strategy').matrix, 'matrix');
  /** The nightly's jobs that run one scenario each, by job id. */
  const scenarioJobs = (): [string, Obj][] =>
    Object.entries(obj(wf.jobs, 'jobs'))
      .map(([id, job]): [string, Obj] => [id, obj(job, id)])
      .filter(([, job]) => job.uses === './.github/workflows/jobstorm-scenario.yml');
  const scenarios = (): string[] =>
    scenarioJobs().map(([id, job]) => str(obj(job.with, `${id}.with`).scenario, `${id}.with.scenario`));

  it('runs nightly and on demand, with the target and key from secrets', () => {
    const on = obj(wf.on, 'on');
    const cron = str(obj(arr(on.schedule, 'schedule')[0], 'schedule[0]').cron, 'cron');
    expect(cron.trim().split(/\s+/)).toHaveLength(5);
    expect('workflow_dispatch' in on).toBe(true);
    expect(scenarioJobs().length).toBeGreaterThan(1);
    expect(Object.keys(obj(wf.jobs, 'jobs'))).toEqual(scenarioJobs().map(([id]) => id));
    const call = obj(obj(called.on, 'on').workflow_call, 'workflow_call');
    const declared = Object.keys(obj(call.secrets, 'workflow_call.secrets')).sort();
    for (const [id, job] of scenarioJobs()) {
      expect(job.secrets, id).toEqual({
        JOBSTORM_TARGET: '${{ secrets.JOBSTORM_TARGET }}',
        JOBSTORM_API_KEY: '${{ secrets.JOBSTORM_API_KEY }}',
      });
      expect(Object.keys(obj(job.secrets, 'secrets')).sort()).toEqual(declared);
      expect(Object.keys(obj(job.with, 'with')).sort()).toEqual(
        Object.keys(obj(call.inputs, 'workflow_call.inputs')).sort(),
      );
    }
    const run = steps(shardJob).find((s) => s.run?.includes('jobstorm run'));
    expect(run?.env).toMatchObject({
      JOBSTORM_TARGET: '${{ secrets.JOBSTORM_TARGET }}',
      JOBSTORM_API_KEY: '${{ secrets.JOBSTORM_API_KEY }}',
    });
    // The key travels in the environment only, never on a command line that logs could show.
    expect(run?.run).not.toContain('--api-key');
  });

  it('scenarios against the endpoint run one after the other, and a failed one does not skip the next', () => {
    // Rate limits are per account and endpoint: two scenarios at once report each other's load.
    const jobs = new Map(scenarioJobs());
    const needs = (id: string): string[] => {
      const n = jobs.get(id)?.needs;
      return n === undefined
        ? []
        : typeof n === 'string'
          ? [n]
          : arr(n, `${id}.needs`).map((x) => str(x, 'needs'));
    };
    const after = (a: string, b: string, seen = new Set<string>()): boolean =>
      needs(a).some((x) => x === b || (!seen.has(x) && (seen.add(x), after(x, b, seen))));
    const ids = [...jobs.keys()];
    for (const a of ids)
      for (const b of ids)
        if (a < b) expect(after(a, b) || after(b, a), `${a} and ${b} would run at the same time`).toBe(true);
    for (const [id] of jobs)
      if (needs(id).length > 0) expect(jobs.get(id)?.if, id).toBe('${{ !cancelled() }}');
    // Inside one scenario the shards run together (they are its load) and the merge waits for them.
    expect(obj(shardJob.strategy, 'strategy')['max-parallel']).toBeUndefined();
    expect(mergeJob.needs).toBe('shard');
    // Then tonight's merged run against the last good one (issue 15), after the merge.
    // First the instant every shard starts its schedule at (issue 38: --start-at).
    expect(Object.keys(obj(called.jobs, 'jobs'))).toEqual(['start', 'shard', 'merge', 'compare']);
    expect(shardJob.needs).toBe('start');
  });

  it('the matrix has shards 1..N and every runner passes --shard i/N with that N', async () => {
    const shards = arr(matrix(shardJob).shard, 'matrix.shard');
    const n = shards.length;
    expect(n).toBeGreaterThan(1);
    expect(shards).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(obj(shardJob.strategy, 'strategy')['fail-fast']).toBe(false);
    const script = str(steps(shardJob).find((s) => s.run?.includes('jobstorm run'))?.run, 'run step');
    const seen: string[] = [];
    for (const scenario of scenarios()) {
      for (const shard of shards) {
        const values = { 'inputs.scenario': scenario, 'matrix.shard': String(shard) };
        const result = await sh(
          'bash',
          expand(script, values),
          { JOBSTORM_TARGET: 'https://x.test/v2/e', DURATION: '' },
          work,
          bin,
        );
        expect(result.code).toBe(0);
        expect(result.calls).toHaveLength(1);
        const call = result.calls[0] ?? '';
        expect(call).toContain(
          `jobstorm run scenarios/${scenario}.yaml --target https://x.test/v2/e --shard ${String(shard)}/${String(n)} `,
        );
        const out = /--out (\S+)/.exec(call)?.[1] ?? '';
        seen.push(out);
        // What the runner wrote is what the artifact uploads.
        const upload = steps(shardJob).find((s) => s.uses?.startsWith('actions/upload-artifact'));
        expect(expand(str(upload?.with?.path, 'upload path'), values)).toBe(out);
        expect(upload?.if).toBe('always()');
      }
    }
    expect(new Set(seen).size).toBe(scenarios().length * n);
  });

  it('a shard missing its own thresholds (exit 1) still passes; exits 2 and 3 fail the runner', async () => {
    const script = expand(
      str(steps(shardJob).find((s) => s.run?.includes('jobstorm run'))?.run, 'run step'),
      { 'inputs.scenario': 'steady-load', 'matrix.shard': '1' },
    );
    const codes: number[] = [];
    for (const code of ['0', '1', '2', '3'])
      codes.push((await sh('bash', script, { FAKE_CODE: code, JOBSTORM_TARGET: 't' }, work, bin)).code);
    expect(codes).toEqual([0, 0, 2, 3]);
    const withDuration = await sh('bash', script, { DURATION: '2m', JOBSTORM_TARGET: 't' }, work, bin);
    expect(withDuration.calls[0]).toContain('--duration 2m');
    const run = steps(shardJob).find((s) => s.run?.includes('jobstorm run'));
    expect(run?.env?.DURATION).toBe('${{ inputs.duration }}');
    for (const [id, job] of scenarioJobs())
      expect(obj(job.with, id).duration, id).toBe("${{ inputs.duration || '' }}");
  });

  it('the merge job downloads every shard artifact, merges them, publishes summary.md and JUnit, then fails on thresholds', async () => {
    const n = arr(matrix(shardJob).shard, 'matrix.shard').length;
    const uploadName = str(
      steps(shardJob).find((s) => s.uses?.startsWith('actions/upload-artifact'))?.with?.name,
      'artifact name',
    );
    const download = steps(mergeJob).find((s) => s.uses?.startsWith('actions/download-artifact'));
    const [first, second] = scenarios();
    const pattern = expand(str(download?.with?.pattern, 'download pattern'), {
      'inputs.scenario': first ?? '',
    });
    const names = Array.from({ length: n }, (_, i) =>
      expand(uploadName, { 'inputs.scenario': first ?? '', 'matrix.shard': String(i + 1) }),
    );
    for (const name of names) expect(globMatches(pattern, name), `${pattern} matches ${name}`).toBe(true);
    expect(
      globMatches(pattern, expand(uploadName, { 'inputs.scenario': second ?? '', 'matrix.shard': '1' })),
    ).toBe(false);

    // download-artifact puts each artifact in <path>/<name>; the merge must be handed all n of them.
    const cwd = await mkdtemp(join(tmpdir(), 'jobstorm-merge-'));
    for (const name of names)
      await mkdir(join(cwd, str(download?.with?.path, 'download path'), name), { recursive: true });
    const mergeStep = steps(mergeJob).find((s) => s.id === 'merge');
    const output = join(cwd, 'github-output');
    await writeFile(output, '');
    const result = await sh(
      'bash',
      expand(str(mergeStep?.run, 'merge run'), { 'inputs.scenario': first ?? '' }),
      { FAKE_CODE: '1', GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: join(cwd, 'summary') },
      cwd,
      bin,
    );
    expect(result.code).toBe(0);
    expect(result.calls).toEqual([
      `jobstorm merge ${names.map((x) => `shards/${x}`).join(' ')} --out merged`,
    ]);
    expect(await readFile(output, 'utf8')).toBe('code=1\n');

    const after = steps(mergeJob).slice(steps(mergeJob).indexOf(mergeStep ?? {}) + 1);
    const publish = after.find((s) => s.run?.includes('$GITHUB_STEP_SUMMARY'));
    expect(publish?.run).toContain('merged/summary.md');
    expect(publish?.if).toBe('always()');
    const junit = after.find((s) => s.with?.report_paths !== undefined);
    expect(junit?.with?.report_paths).toBe('merged/junit.xml');
    expect(junit?.if).toBe('always()');
    const last = after[after.length - 1];
    expect(last?.run).toContain('steps.merge.outputs.code');
    expect(expand(str(last?.run, 'last step'), { 'steps.merge.outputs.code || 1': '1' })).toBe('exit "1"');
  });

  it('every scenario it runs exists and can run against a real target', async () => {
    for (const name of scenarios()) {
      const scenario = await loadScenario(join(root, 'scenarios', `${name}.yaml`));
      expect(JSON.stringify(scenario.flows)).not.toContain('"kind":"advance"');
    }
  });
});

describe('deploy/kubernetes', () => {
  const docs: Obj[] = [];
  const texts = new Map<string, string>();
  let bin = '';
  let work = '';

  beforeAll(async () => {
    const dir = join(deploy, 'kubernetes');
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort()) {
      const text = await readFile(join(dir, file), 'utf8');
      texts.set(file, text);
      for (const doc of parseAllDocuments(text)) {
        expect(doc.errors, file).toEqual([]);
        docs.push(obj(doc.toJS(), file));
      }
    }
    work = await mkdtemp(join(tmpdir(), 'jobstorm-k8s-'));
    bin = join(work, 'bin');
    await mkdir(bin);
    await fakeBin(bin, 'jobstorm');
  });

  const kind = (k: string): Obj[] => docs.filter((d) => d.kind === k);
  const podSpec = (job: Obj): Obj => obj(obj(obj(job.spec, 'spec').template, 'template').spec, 'pod spec');
  const container = (c: unknown): Obj => obj(c, 'container');
  const envOf = (c: Obj): Record<string, string> =>
    Object.fromEntries(
      arr(c.env, 'env').flatMap((e) =>
        typeof obj(e, 'env').value === 'string'
          ? [[str(obj(e, 'env').name, 'name'), str(obj(e, 'env').value, 'value')]]
          : [],
      ),
    );
  const script = (c: Obj): string => {
    expect(c.command).toEqual(['/bin/sh', '-c']);
    return str(arr(c.args, 'args')[0], 'args[0]');
  };
  /** The scripts use absolute /reports; run them against a temporary folder instead. */
  const local = (text: string, reports: string): string => text.replaceAll('/reports', reports);
  const shardsJob = (): Obj => {
    const indexed = kind('Job').filter((j) => obj(j.spec, 'spec').completionMode === 'Indexed');
    expect(indexed).toHaveLength(1);
    return indexed[0] ?? {};
  };
  const shardContainer = (): Obj => container(arr(podSpec(shardsJob()).containers, 'containers')[0]);
  /** The merge Job as `kubectl create` receives it after the documented `sed` fills in the run. */
  const mergeJobFor = (run: string | undefined): Obj => {
    const text = texts.get('merge-job.yaml') ?? '';
    const placeholder = /sed "s\/([^/]+)\/\$run\/" merge-job\.yaml \| kubectl create -f -/.exec(text)?.[1];
    expect(placeholder, 'merge-job.yaml documents how to fill in the run').toBeDefined();
    return obj(parse(run === undefined ? text : text.replaceAll(placeholder ?? '', run)), 'merge job');
  };

  it('an Indexed Job with completions = parallelism = SHARDS turns each completion index into --shard i/N', async () => {
    const job = shardsJob();
    const spec = obj(job.spec, 'spec');
    const shard = shardContainer();
    const env = envOf(shard);
    const n = Number(env.SHARDS);
    expect(n).toBeGreaterThan(1);
    expect(spec.completions).toBe(n);
    expect(spec.parallelism).toBe(n);
    expect(podSpec(job).restartPolicy).toBe('Never');
    const reports = join(work, 'reports');
    const run = { RUN_ID: 'jobstorm-shards-x7k2p' };
    const outs: string[] = [];
    for (let index = 0; index < n; index++) {
      const result = await sh(
        'sh',
        local(script(shard), reports),
        { ...env, ...run, JOB_COMPLETION_INDEX: String(index), JOBSTORM_TARGET: 'https://x.test/v2/e' },
        work,
        bin,
      );
      expect(result.code).toBe(0);
      const call = result.calls[0] ?? '';
      expect(call).toContain(
        `run /scenarios/scenario.yaml --target https://x.test/v2/e --shard ${String(index + 1)}/${String(n)} `,
      );
      outs.push(/--out (\S+)/.exec(call)?.[1] ?? '');
    }
    expect(outs).toEqual(
      Array.from({ length: n }, (_, i) => `${reports}/${run.RUN_ID}/shard-${String(i + 1)}`),
    );
    const failing = await sh(
      'sh',
      local(script(shard), reports),
      { ...env, ...run, JOB_COMPLETION_INDEX: '0', FAKE_CODE: '3' },
      work,
      bin,
    );
    expect(failing.code).toBe(3);
    const thresholdsOnly = await sh(
      'sh',
      local(script(shard), reports),
      { ...env, ...run, JOB_COMPLETION_INDEX: '0', FAKE_CODE: '1' },
      work,
      bin,
    );
    expect(thresholdsOnly.code).toBe(0);
    const noRun = await sh(
      'sh',
      local(script(shard), reports),
      { ...env, RUN_ID: '', JOB_COMPLETION_INDEX: '0' },
      work,
      bin,
    );
    expect(noRun.code).toBe(2);
    expect(noRun.calls).toEqual([]);
  });

  it('each run has its own id: the shards Job gets a generated name per creation, and its pods write under it', () => {
    // A fixed run id made a second night merge the first night's shard reports.
    const meta = obj(shardsJob().metadata, 'metadata');
    expect(meta.name).toBeUndefined();
    expect(str(meta.generateName, 'generateName')).toMatch(/-$/);
    const runId = arr(shardContainer().env, 'env')
      .map((e) => obj(e, 'env'))
      .find((e) => e.name === 'RUN_ID');
    // The Job controller labels every pod with its Job's name (Kubernetes ≥ 1.27).
    expect(obj(obj(runId?.valueFrom, 'valueFrom').fieldRef, 'fieldRef').fieldPath).toBe(
      "metadata.labels['batch.kubernetes.io/job-name']",
    );
    const merge = mergeJobFor(undefined);
    expect(obj(merge.metadata, 'metadata').name).toBeUndefined();
  });

  it('every pod runs as the image user (uid/gid 1000) with fsGroup 1000, so it can write the volume', async () => {
    expect(await readFile(join(deploy, 'container/Dockerfile'), 'utf8')).toMatch(/^USER node$/m);
    for (const job of kind('Job')) {
      expect(podSpec(job).securityContext, String(obj(job.metadata, 'metadata').generateName)).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        fsGroup: 1000,
      });
    }
  });

  it('the merge Job refuses to start without a run id', async () => {
    const init = container(arr(podSpec(mergeJobFor(undefined)).initContainers, 'initContainers')[0]);
    const result = await sh(
      'sh',
      local(script(init), join(work, 'none')),
      { ...envOf(init), POLL_SECONDS: '0' },
      work,
      bin,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('RUN_ID is not set');
  });

  it('the merge Job waits for all N shard reports of its run only, names a missing shard and merges without it (partial), then merges exactly those folders', async () => {
    const run = 'jobstorm-shards-q4mzt';
    const shardEnv = envOf(shardContainer());
    const mergeJob = mergeJobFor(run);
    const init = container(arr(podSpec(mergeJob).initContainers, 'initContainers')[0]);
    const merge = container(arr(podSpec(mergeJob).containers, 'containers')[0]);
    expect(envOf(init)).toMatchObject({ SHARDS: shardEnv.SHARDS, RUN_ID: run });
    expect(envOf(merge)).toEqual({ SHARDS: shardEnv.SHARDS, RUN_ID: run });
    // The script gives up, with its message, before Kubernetes kills the pod without one; and it
    // waits at least as long as the shards may run.
    const waitSeconds = Number(envOf(init).WAIT_SECONDS);
    expect(waitSeconds).toBeGreaterThanOrEqual(Number(obj(shardsJob().spec, 'spec').activeDeadlineSeconds));
    expect(Number(obj(mergeJob.spec, 'spec').activeDeadlineSeconds)).toBeGreaterThan(waitSeconds + 60);
    expect(Number(envOf(init).STRAGGLER_SECONDS)).toBeLessThan(waitSeconds);

    const reports = join(work, 'merge-reports');
    const n = Number(shardEnv.SHARDS);
    const runDir = join(reports, run);
    const write = async (dir: string, i: number): Promise<void> => {
      await mkdir(join(dir, `shard-${String(i)}`), { recursive: true });
      await writeFile(join(dir, `shard-${String(i)}`, 'summary.json'), '{}');
    };
    // Last night's run, complete, beside this one: it must not count.
    for (let i = 1; i <= n; i++) await write(join(reports, 'jobstorm-shards-older'), i);
    const wait = (env: Record<string, string>): Promise<ShellResult> =>
      sh('sh', local(script(init), reports), { ...envOf(init), POLL_SECONDS: '1', ...env }, work, bin);

    // Nothing written and the whole wait is over: every shard is named.
    const none = await wait({ WAIT_SECONDS: '1' });
    expect(none.code).toBe(1);
    for (let i = 1; i <= n; i++)
      expect(none.stderr).toContain(
        `shard ${String(i)}/${String(n)} of run ${run} wrote no ${runDir}/shard-${String(i)}/summary.json`,
      );

    // N−1 reports: within the straggler allowance it is still waiting (stopped from outside)…
    for (let i = 1; i < n; i++) await write(runDir, i);
    const waiting = await sh(
      'sh',
      `timeout 3 sh -c '${local(script(init), reports).replaceAll("'", "'\\''")}'`,
      { ...envOf(init), POLL_SECONDS: '1' },
      work,
      bin,
    );
    expect(waiting.code).toBe(124);
    expect(waiting.stdout).toContain(`waiting for shard(s) ${String(n)} of ${String(n)}`);
    // …and once the others have been done that long, it gives up at once, names only the missing
    // one, and lets the merge go on without it (a failed shard is never re-run: it will not come).
    // Real time: the merge's wait is a real shell script process reading real file times.
    const started = Date.now();
    const straggler = await wait({ STRAGGLER_SECONDS: '1' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(straggler.code).toBe(0);
    expect(straggler.stderr).toContain('the merge reports the run as partial');
    expect(straggler.stderr).toContain(
      `shard ${String(n)}/${String(n)} of run ${run} wrote no ${runDir}/shard-${String(n)}/summary.json`,
    );
    expect(straggler.stderr).toContain(`batch.kubernetes.io/job-completion-index=${String(n - 1)}`);
    expect(straggler.stderr).not.toContain('shard 1/');

    await write(runDir, n);
    await write(runDir, n + 5); // a stray folder is never merged
    const done = await wait({});
    expect(done.code).toBe(0);
    const result = await sh('sh', local(script(merge), reports), envOf(merge), work, bin);
    expect(result.code).toBe(0);
    const shardDirs = Array.from({ length: n }, (_, i) => `${runDir}/shard-${String(i + 1)}`);
    expect(result.calls).toEqual([`merge ${shardDirs.join(' ')} --out ${runDir}/merged`]);
  });

  it('every pod mounts the shared claim, reads the target Secret, and runs the same image', () => {
    const claim = kind('PersistentVolumeClaim')[0];
    const claimName = obj(claim?.metadata, 'metadata').name;
    expect(obj(claim?.spec, 'spec').accessModes).toEqual(['ReadWriteMany']);
    const secret = kind('Secret')[0];
    const secretName = obj(secret?.metadata, 'metadata').name;
    const images = new Set<unknown>();
    for (const job of kind('Job')) {
      const pod = podSpec(job);
      const volumes = arr(pod.volumes, 'volumes').map((v) => obj(v, 'volume'));
      expect(volumes.some((v) => obj(v.persistentVolumeClaim ?? {}, 'pvc').claimName === claimName)).toBe(
        true,
      );
      for (const c of [
        ...arr(pod.containers, 'containers'),
        ...(pod.initContainers === undefined ? [] : arr(pod.initContainers, 'initContainers')),
      ]) {
        images.add(container(c).image);
        const mounts = arr(container(c).volumeMounts, 'volumeMounts').map((m) => obj(m, 'mount'));
        expect(mounts.some((m) => m.mountPath === '/reports')).toBe(true);
      }
    }
    expect(images.size).toBe(1);
    const fromSecret = arr(shardContainer().env, 'env')
      .map((e) => obj(e, 'env'))
      .flatMap((e) =>
        e.valueFrom === undefined || obj(e.valueFrom, 'valueFrom').secretKeyRef === undefined
          ? []
          : [obj(obj(e.valueFrom, 'valueFrom').secretKeyRef, 'secretKeyRef')],
      );
    expect(fromSecret.map((r) => r.key).sort()).toEqual(['JOBSTORM_API_KEY', 'JOBSTORM_TARGET']);
    for (const r of fromSecret) expect(r.name).toBe(secretName);
    expect(Object.keys(obj(secret?.stringData, 'stringData')).sort()).toEqual([
      'JOBSTORM_API_KEY',
      'JOBSTORM_TARGET',
    ]);
  });
});
