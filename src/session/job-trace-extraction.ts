import { stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readRecords } from '../check/records-file.js';
import { ConfigError } from '../core/config-error.js';
import type { JobTraceOp } from '../core/job-trace-job.js';
import type { ExchangeRecord } from '../core/record.js';
import { JobTraceBuilder, type JobTraceLeftOut } from '../trace/job-trace-builder.js';

/*
 * `jobstorm trace <run folder>`: a run's records.ndjson made into a job trace (docs/replay.md),
 * written as JSON Lines, with a scenario beside it that replays it (one replay phase, one flow of
 * one `traceJob` step whose submissions start from the run's own first ones).
 */

export interface JobTraceExtraction {
  readonly records: string;
  readonly trace: string;
  readonly scenario: string;
  readonly jobs: number;
  /** Calls of each kind the trace holds. */
  readonly actions: Readonly<Record<string, number>>;
  readonly leftOut: JobTraceLeftOut;
}

/** The records file of a run folder, or the file given; a clear error when there is none. */
async function recordsFileOf(input: string): Promise<string> {
  const info = await stat(input).catch(() => undefined);
  if (info === undefined) throw new ConfigError([{ where: input, message: 'no such file or folder' }]);
  if (!info.isDirectory()) return input;
  const file = join(input, 'records.ndjson');
  if ((await stat(file).catch(() => undefined)) === undefined)
    throw new ConfigError([
      {
        where: input,
        message: 'no records.ndjson in this folder: a job trace is made from the records a run keeps (run with --record)',
      },
    ]);
  return file;
}

/**
 * What the replay scenario's `traceJob` says for each kind the run submitted. Records keep no
 * request bodies: the inputs start empty, a runsync keeps its wait, and an OpenAI body, which
 * cannot start empty, is left for the user to write (the scenario says so).
 */
function submissionsOf(first: Partial<Record<JobTraceOp, ExchangeRecord>>): { lines: string[]; notes: string[] } {
  const lines: string[] = [];
  if (first.run) lines.push('run: { input: {} }');
  if (first.runsync) {
    const wait = first.runsync.req?.wait;
    lines.push(`runsync: { input: {}${wait === undefined ? '' : `, wait: ${String(wait)}ms`} }`);
  }
  const notes =
    first.openai === undefined
      ? []
      : [
          '# The run made OpenAI requests, whose bodies the records do not keep: add',
          '# openai: { body: { model: …, messages: [{ role: user, content: "…" }] } }',
          '# under traceJob to replay them (until then the scenario is refused).',
        ];
  return { lines, notes };
}

function replayScenario(name: string, traceFile: string, submissions: { lines: string[]; notes: string[] }): string {
  const { lines, notes } = submissions;
  return [
    `# Replays ${traceFile}, the job trace jobstorm trace made of a run of "${name}": each job`,
    '# submitted when it was, each of its calls at its offset after the submission (docs/replay.md).',
    '# Records keep no request bodies: give the inputs your jobs need, and --target to replay elsewhere.',
    ...notes,
    `name: ${JSON.stringify(`${name}-replay`)}`,
    'phases:',
    `  - replay: { file: ${JSON.stringify(traceFile)}, format: jobstorm }`,
    'flows:',
    '  - name: replay',
    '    steps:',
    `      - traceJob:${lines.length === 0 ? ' {}' : ''}`,
    ...lines.map((l) => `          ${l}`),
    '',
  ].join('\n');
}

/** Reads `input`'s records once, writes the trace (default beside them) and its replay scenario. */
export async function extractJobTrace(input: string, out?: string): Promise<JobTraceExtraction> {
  const records = await recordsFileOf(input);
  const builder = new JobTraceBuilder();
  let scenarioName = 'run';
  for await (const r of readRecords(records)) {
    if (r.type === 'run') scenarioName = r.scenario;
    else builder.add(r);
  }
  const entries = builder.entries();
  if (entries.length === 0)
    throw new ConfigError([{ where: records, message: 'the run submitted no job: there is no job trace to make' }]);
  const trace = out ?? join(dirname(records), 'job-trace.jsonl');
  const scenario = join(dirname(trace), 'replay.yaml');
  // The entries are in memory already (a trace is sorted by submission): one write.
  await writeFile(trace, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
  await writeFile(scenario, replayScenario(scenarioName, basename(trace), submissionsOf(builder.firstSubmits)));
  const actions: Record<string, number> = {};
  for (const e of entries) for (const a of e.actions ?? []) actions[a.op] = (actions[a.op] ?? 0) + 1;
  return { records, trace, scenario, jobs: entries.length, actions, leftOut: builder.leftOut };
}
