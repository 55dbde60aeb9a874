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
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${what}: expected a mapping, got ${JSON.stringify(v)}`);
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
}

async function sh(shell: 'bash' | 'sh', script: string, env: Record<string, string>, cwd: string, bin: string): Promise<ShellResult> {
  const calls = join(cwd, `calls-${String(Math.random()).slice(2)}`);
  await writeFile(calls, '');
  const result = await promisify(execFile)(shell, ['-c', script], { cwd, env: { PATH: `${bin}:/usr/bin:/bin`, CALLS: calls, ...env } }).then(
    () => 0,
    (err: unknown) => (err as { code?: number }).code ?? -1,
  );
  const lines = (await readFile(calls, 'utf8')).split('\n').filter((l) => l.length > 0);
  return { code: result, calls: lines };
}

function globMatches(glob: string, name: string): boolean {
  return new RegExp(`^${glob.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(name);
}

describe('deploy/github-actions/nightly.yml', () => {
  let wf: Obj;
  let shardJob: Obj;
  let mergeJob: Obj;
  let bin = '';
  let work = '';

  beforeAll(async () => {
    wf = obj(parse(await readFile(join(deploy, 'github-actions/nightly.yml'), 'utf8')), 'workflow');
    const jobs = obj(wf.jobs, 'jobs');
    shardJob = obj(jobs.shard, 'jobs.shard');
    mergeJob = obj(jobs.merge, 'jobs.merge');
    work = await mkdtemp(join(tmpdir(), 'jobstorm-deploy-'));
    bin = join(work, 'bin');
    await mkdir(bin);
    await fakeBin(bin, 'npx');
  });

  const steps = (job: Obj): Step[] => arr(job.steps, 'steps') as Step[];
  const matrix = (job: Obj): Obj => obj(obj(job.strategy, 'strategy').matrix, 'matrix');

  it('runs nightly and on demand, with the target and key from secrets', () => {
    const on = obj(wf.on, 'on');
    const cron = str(obj(arr(on.schedule, 'schedule')[0], 'schedule[0]').cron, 'cron');
    expect(cron.trim().split(/\s+/)).toHaveLength(5);
    expect('workflow_dispatch' in on).toBe(true);
    const run = steps(shardJob).find((s) => s.run?.includes('jobstorm run'));
    expect(run?.env).toMatchObject({ JOBSTORM_TARGET: '${{ secrets.JOBSTORM_TARGET }}', JOBSTORM_API_KEY: '${{ secrets.JOBSTORM_API_KEY }}' });
    // The key travels in the environment only, never on a command line that logs could show.
    expect(run?.run).not.toContain('--api-key');
  });

  it('the matrix has shards 1..N and every runner passes --shard i/N with that N', async () => {
    const shards = arr(matrix(shardJob).shard, 'matrix.shard');
    const n = shards.length;
    expect(n).toBeGreaterThan(1);
    expect(shards).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(obj(shardJob.strategy, 'strategy')['fail-fast']).toBe(false);
    const script = str(steps(shardJob).find((s) => s.run?.includes('jobstorm run'))?.run, 'run step');
    const scenarios = arr(matrix(shardJob).scenario, 'matrix.scenario').map((s) => str(s, 'scenario'));
    const seen: string[] = [];
    for (const scenario of scenarios) {
      for (const shard of shards) {
        const values = { 'matrix.scenario': scenario, 'matrix.shard': String(shard) };
        const result = await sh('bash', expand(script, values), { JOBSTORM_TARGET: 'https://x.test/v2/e', DURATION: '' }, work, bin);
        expect(result.code).toBe(0);
        expect(result.calls).toHaveLength(1);
        const call = result.calls[0] ?? '';
        expect(call).toContain(`jobstorm run scenarios/${scenario}.yaml --target https://x.test/v2/e --shard ${String(shard)}/${String(n)} `);
        const out = /--out (\S+)/.exec(call)?.[1] ?? '';
        seen.push(out);
        // What the runner wrote is what the artifact uploads.
        const upload = steps(shardJob).find((s) => s.uses?.startsWith('actions/upload-artifact'));
        expect(expand(str(upload?.with?.path, 'upload path'), values)).toBe(out);
        expect(upload?.if).toBe('always()');
      }
    }
    expect(new Set(seen).size).toBe(scenarios.length * n);
  });

  it('a shard missing its own thresholds (exit 1) still passes; exits 2 and 3 fail the runner', async () => {
    const script = expand(str(steps(shardJob).find((s) => s.run?.includes('jobstorm run'))?.run, 'run step'), { 'matrix.scenario': 'steady-load', 'matrix.shard': '1' });
    const codes: number[] = [];
    for (const code of ['0', '1', '2', '3']) codes.push((await sh('bash', script, { FAKE_CODE: code, JOBSTORM_TARGET: 't' }, work, bin)).code);
    expect(codes).toEqual([0, 0, 2, 3]);
    const withDuration = await sh('bash', script, { DURATION: '2m', JOBSTORM_TARGET: 't' }, work, bin);
    expect(withDuration.calls[0]).toContain('--duration 2m');
  });

  it('the merge job downloads every shard artifact, merges them, publishes summary.md and JUnit, then fails on thresholds', async () => {
    expect(mergeJob.needs).toBe('shard');
    expect(matrix(mergeJob).scenario).toEqual(matrix(shardJob).scenario);
    const n = arr(matrix(shardJob).shard, 'matrix.shard').length;
    const uploadName = str(steps(shardJob).find((s) => s.uses?.startsWith('actions/upload-artifact'))?.with?.name, 'artifact name');
    const download = steps(mergeJob).find((s) => s.uses?.startsWith('actions/download-artifact'));
    const pattern = expand(str(download?.with?.pattern, 'download pattern'), { 'matrix.scenario': 'steady-load' });
    const names = Array.from({ length: n }, (_, i) => expand(uploadName, { 'matrix.scenario': 'steady-load', 'matrix.shard': String(i + 1) }));
    for (const name of names) expect(globMatches(pattern, name), `${pattern} matches ${name}`).toBe(true);
    expect(globMatches(pattern, expand(uploadName, { 'matrix.scenario': 'ramp', 'matrix.shard': '1' }))).toBe(false);

    // download-artifact puts each artifact in <path>/<name>; the merge must be handed all n of them.
    const cwd = await mkdtemp(join(tmpdir(), 'jobstorm-merge-'));
    for (const name of names) await mkdir(join(cwd, str(download?.with?.path, 'download path'), name), { recursive: true });
    const mergeStep = steps(mergeJob).find((s) => s.id === 'merge');
    const output = join(cwd, 'github-output');
    await writeFile(output, '');
    const result = await sh('bash', expand(str(mergeStep?.run, 'merge run'), { 'matrix.scenario': 'steady-load' }), { FAKE_CODE: '1', GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: join(cwd, 'summary') }, cwd, bin);
    expect(result.code).toBe(0);
    expect(result.calls).toEqual([`jobstorm merge ${names.map((x) => `shards/${x}`).join(' ')} --out merged`]);
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
    for (const name of arr(matrix(shardJob).scenario, 'matrix.scenario')) {
      const scenario = await loadScenario(join(root, 'scenarios', `${str(name, 'scenario')}.yaml`));
      expect(JSON.stringify(scenario.flows)).not.toContain('"kind":"advance"');
    }
  });
});

describe('deploy/kubernetes', () => {
  const docs: Obj[] = [];
  let bin = '';
  let work = '';

  beforeAll(async () => {
    const dir = join(deploy, 'kubernetes');
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort()) {
      for (const doc of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
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
    Object.fromEntries(arr(c.env, 'env').flatMap((e) => (typeof obj(e, 'env').value === 'string' ? [[str(obj(e, 'env').name, 'name'), str(obj(e, 'env').value, 'value')]] : [])));
  const script = (c: Obj): string => {
    expect(c.command).toEqual(['/bin/sh', '-c']);
    return str(arr(c.args, 'args')[0], 'args[0]');
  };
  /** The scripts use absolute /reports; run them against a temporary folder instead. */
  const local = (text: string, reports: string): string => text.replaceAll('/reports', reports);

  it('an Indexed Job with completions = parallelism = SHARDS turns each completion index into --shard i/N', async () => {
    const indexed = kind('Job').filter((j) => obj(j.spec, 'spec').completionMode === 'Indexed');
    expect(indexed).toHaveLength(1);
    const job = indexed[0] ?? {};
    const spec = obj(job.spec, 'spec');
    const shard = container(arr(podSpec(job).containers, 'containers')[0]);
    const env = envOf(shard);
    const n = Number(env.SHARDS);
    expect(n).toBeGreaterThan(1);
    expect(spec.completions).toBe(n);
    expect(spec.parallelism).toBe(n);
    expect(podSpec(job).restartPolicy).toBe('Never');
    const reports = join(work, 'reports');
    const outs: string[] = [];
    for (let index = 0; index < n; index++) {
      const result = await sh('sh', local(script(shard), reports), { ...env, JOB_COMPLETION_INDEX: String(index), JOBSTORM_TARGET: 'https://x.test/v2/e' }, work, bin);
      expect(result.code).toBe(0);
      const call = result.calls[0] ?? '';
      expect(call).toContain(`run /scenarios/scenario.yaml --target https://x.test/v2/e --shard ${String(index + 1)}/${String(n)} `);
      outs.push(/--out (\S+)/.exec(call)?.[1] ?? '');
    }
    expect(outs).toEqual(Array.from({ length: n }, (_, i) => `${reports}/${env.RUN_ID ?? ''}/shard-${String(i + 1)}`));
    const failing = await sh('sh', local(script(shard), reports), { ...env, JOB_COMPLETION_INDEX: '0', FAKE_CODE: '3' }, work, bin);
    expect(failing.code).toBe(3);
    const thresholdsOnly = await sh('sh', local(script(shard), reports), { ...env, JOB_COMPLETION_INDEX: '0', FAKE_CODE: '1' }, work, bin);
    expect(thresholdsOnly.code).toBe(0);
  });

  it('the merge Job waits for all N shard reports of the same run, then merges exactly those folders', async () => {
    const shardJob = kind('Job').find((j) => obj(j.spec, 'spec').completionMode === 'Indexed') ?? {};
    const shardEnv = envOf(container(arr(podSpec(shardJob).containers, 'containers')[0]));
    const mergeJob = kind('Job').find((j) => j !== shardJob) ?? {};
    const init = container(arr(podSpec(mergeJob).initContainers, 'initContainers')[0]);
    const merge = container(arr(podSpec(mergeJob).containers, 'containers')[0]);
    expect(envOf(init)).toEqual({ SHARDS: shardEnv.SHARDS, RUN_ID: shardEnv.RUN_ID });
    expect(envOf(merge)).toEqual({ SHARDS: shardEnv.SHARDS, RUN_ID: shardEnv.RUN_ID });

    const reports = join(work, 'merge-reports');
    const n = Number(shardEnv.SHARDS);
    const runDir = join(reports, shardEnv.RUN_ID ?? '');
    // With N−1 reports the wait is still waiting (it would sleep; give it a moment, then stop it).
    for (let i = 1; i < n; i++) {
      await mkdir(join(runDir, `shard-${String(i)}`), { recursive: true });
      await writeFile(join(runDir, `shard-${String(i)}`, 'summary.json'), '{}');
    }
    const waiting = await sh('sh', `timeout 1 sh -c '${local(script(init), reports).replaceAll("'", "'\\''")}'`, envOf(init), work, bin);
    expect(waiting.code).toBe(124);
    await mkdir(join(runDir, `shard-${String(n)}`), { recursive: true });
    await writeFile(join(runDir, `shard-${String(n)}`, 'summary.json'), '{}');
    const done = await sh('sh', local(script(init), reports), envOf(init), work, bin);
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
      expect(volumes.some((v) => obj(v.persistentVolumeClaim ?? {}, 'pvc').claimName === claimName)).toBe(true);
      for (const c of [...arr(pod.containers, 'containers'), ...(pod.initContainers === undefined ? [] : arr(pod.initContainers, 'initContainers'))]) {
        images.add(container(c).image);
        const mounts = arr(container(c).volumeMounts, 'volumeMounts').map((m) => obj(m, 'mount'));
        expect(mounts.some((m) => m.mountPath === '/reports')).toBe(true);
      }
    }
    expect(images.size).toBe(1);
    const shard = container(arr(podSpec(kind('Job').find((j) => obj(j.spec, 'spec').completionMode === 'Indexed') ?? {}).containers, 'containers')[0]);
    const fromSecret = arr(shard.env, 'env')
      .map((e) => obj(e, 'env'))
      .filter((e) => e.valueFrom !== undefined)
      .map((e) => obj(obj(e.valueFrom, 'valueFrom').secretKeyRef, 'secretKeyRef'));
    expect(fromSecret.map((r) => r.key).sort()).toEqual(['JOBSTORM_API_KEY', 'JOBSTORM_TARGET']);
    for (const r of fromSecret) expect(r.name).toBe(secretName);
    expect(Object.keys(obj(secret?.stringData, 'stringData')).sort()).toEqual(['JOBSTORM_API_KEY', 'JOBSTORM_TARGET']);
  });
});
