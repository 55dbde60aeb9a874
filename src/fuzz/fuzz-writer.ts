import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { stringify } from 'yaml';
import { writeTextFiles } from '../report/report-writer.js';
import type { FuzzFinding } from './fuzzer.js';
import { findingDir, findingFiles, type FuzzReport } from './fuzz-report.js';
import { renderFuzzMarkdown } from './fuzz-markdown.js';
import { traceText, trialScenario, type TrialSettings } from './fuzz-trial.js';

/*
 * The fuzz's report folder: fuzz.json and fuzz.md, and for each finding the shrunk job trace, the
 * scenario that replays it (`jobstorm run findings/<id>/repro.yaml` shows the finding again) and
 * the records of the smallest run that showed it, the evidence every example cites.
 */

export const FUZZ_FILES = { json: 'fuzz.json', markdown: 'fuzz.md' } as const;

/** The scenario file of a finding: the trial's, over the trace beside it, with how to run it. */
export function reproYaml(
  report: FuzzReport,
  f: FuzzFinding,
  settings: Pick<TrialSettings, 'faults' | 'emulator' | 'target'>,
): string {
  const scenario = trialScenario(basename(findingFiles(f.id).trace), f.jobs, settings);
  const remote = settings.target !== undefined;
  const header = [
    `# ${f.id}, found by jobstorm fuzz (seed ${String(report.seed)}, trial ${String(f.trial)}) and shrunk to`,
    `# ${String(f.after.jobs)} jobs and ${String(f.after.calls)} calls. Run it to see the finding again:`,
    remote
      ? `#   jobstorm run repro.yaml --target ${report.target}  (with JOBSTORM_API_KEY set)`
      : '#   jobstorm run repro.yaml',
    '# job-trace.jsonl beside it holds the jobs: one line each, with its input, policy and the calls',
    '# made for it after its submission (docs/replay.md).',
  ];
  return `${header.join('\n')}\n${stringify(scenario)}`;
}

const ndjson = (rows: readonly unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');

/** Writes the report folder; returns the paths written. */
export async function writeFuzzReports(
  report: FuzzReport,
  findings: readonly FuzzFinding[],
  settings: Pick<TrialSettings, 'faults' | 'emulator' | 'target'>,
  dir: string,
): Promise<string[]> {
  const files: [string, string][] = [
    [FUZZ_FILES.json, `${JSON.stringify(report, null, 2)}\n`],
    [FUZZ_FILES.markdown, renderFuzzMarkdown(report)],
  ];
  for (const f of findings) {
    const paths = findingFiles(f.id);
    // writeTextFiles makes `dir`; each finding's folder is made here.
    await mkdir(join(dir, findingDir(f.id)), { recursive: true });
    files.push(
      [paths.trace, traceText(f.jobs)],
      [paths.scenario, reproYaml(report, f, settings)],
      [paths.records, ndjson(f.records)],
    );
  }
  return writeTextFiles(dir, files);
}
