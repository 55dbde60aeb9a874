import { dirname, join } from 'node:path';
import type { Argv } from 'yargs';
import { compareRuns } from '../../compare/comparison.js';
import { writeComparison } from '../../compare/compare-writer.js';
import { parseGates, type GateSource } from '../../compare/gate.js';
import { readRun, summaryPath } from '../../compare/run-input.js';
import { renderCompareMarkdown } from '../../compare/compare-markdown.js';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { ExitCode } from '../../core/exit-code.js';
import type { Summary } from '../../report/summary.js';
import { loadScenario } from '../../scenario/scenario-loader.js';
import type { JobstormCommand } from '../command.js';

interface CompareArgs {
  baseline?: string;
  current?: string;
  gate?: string[];
  scenario?: string;
  significance?: number;
  force?: boolean;
  out?: string;
  seed?: number;
  'job-noise'?: number;
}

const EXIT = { passed: ExitCode.Ok, failed: ExitCode.Failed, inconclusive: ExitCode.Inconclusive } as const;

/** Reads both inputs before failing, so one run names every bad file. */
async function readBoth(baseline: string, current: string): Promise<[Summary, Summary]> {
  const issues: ConfigIssue[] = [];
  const out: Summary[] = [];
  for (const input of [baseline, current]) {
    try {
      out.push(await readRun(input));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(...err.issues);
    }
  }
  const [b, c] = out;
  if (issues.length || !b || !c) throw new ConfigError(issues);
  return [b, c];
}

async function gateSources(args: CompareArgs, env: Readonly<Record<string, string | undefined>>): Promise<{ sources: GateSource[]; significance: number | undefined }> {
  const sources: GateSource[] = [];
  let significance: number | undefined;
  if (args.scenario !== undefined) {
    const scenario = await loadScenario(args.scenario, { env: { ...env } });
    (scenario.compare?.gates ?? []).forEach((expression, i) => sources.push({ expression, where: `${args.scenario ?? ''}: compare.gates[${i}]` }));
    significance = scenario.compare?.significance;
  }
  for (const expression of args.gate ?? []) sources.push({ expression, where: '--gate' });
  if (args.significance !== undefined) {
    if (!(args.significance > 0 && args.significance < 1)) {
      throw new ConfigError([{ where: '--significance', message: `a confidence level between 0 and 1 (e.g. 0.95), not ${String(args.significance)}` }]);
    }
    significance = args.significance;
  }
  return { sources, significance };
}

function jobNoise(value: number): number {
  if (!(value >= 0 && value < 1)) throw new ConfigError([{ where: '--job-noise', message: `a fraction between 0 and 1 (e.g. 0.05), not ${String(value)}` }]);
  return value;
}

export const compareCommand: JobstormCommand<CompareArgs> = {
  command: 'compare <baseline> <current>',
  describe: 'Compare a run against a baseline run: deltas with their significance, gates on them',
  builder: (y: Argv) =>
    y
      .positional('baseline', { type: 'string', describe: 'baseline run folder (or its summary.json)' })
      .positional('current', { type: 'string', describe: 'current run folder (or its summary.json)' })
      .option('gate', { type: 'string', array: true, describe: 'gate on a change, e.g. "delta(p99(run)) < 10%" (repeatable)' })
      .option('scenario', { type: 'string', describe: 'scenario file whose compare: section gives gates and significance' })
      .option('significance', { type: 'number', describe: 'a gate fails only on a change significant at this level, e.g. 0.95' })
      .option('force', { type: 'boolean', default: false, describe: 'compare runs of different scenarios, kinds of target or rates' })
      .option('seed', { type: 'number', describe: 'seed of the resampling (default 1)' })
      .option('job-noise', { type: 'number', describe: 'how far job timings may shift from run to run by noise alone, as a fraction (default 0.05)' })
      .option('out', { type: 'string', describe: 'folder for compare.{json,md,html} and compare-junit.xml (default <current>/compare)' })
      .example('$0 compare reports/last-good reports/tonight --gate "delta(p99(run)) < 10%" --gate "new(violations) == 0"', 'gate tonight against the last good run')
      .example('$0 compare base cur --significance 0.95 --gate "delta(p95(e2e{status=COMPLETED})) < 250ms"', 'fail only on changes larger than the noise'),
  run: async (args, io) => {
    const baselineInput = args.baseline ?? '';
    const currentInput = args.current ?? '';
    const { sources, significance } = await gateSources(args, io.env);
    const gates = parseGates(sources);
    const [baseline, current] = await readBoth(baselineInput, currentInput);
    const cmp = compareRuns(baseline, current, {
      baselineSource: baselineInput,
      currentSource: currentInput,
      gates,
      significance: significance ?? null,
      force: args.force ?? false,
      ...(args.seed !== undefined ? { seed: args.seed } : {}),
      ...(args['job-noise'] !== undefined ? { jobNoise: jobNoise(args['job-noise']) } : {}),
    });
    const out = args.out ?? join(dirname(await summaryPath(currentInput)), 'compare');
    const written = await writeComparison(cmp, baseline, current, out, { stepSummaryPath: io.env.GITHUB_STEP_SUMMARY || undefined });
    io.out(renderCompareMarkdown(cmp).trimEnd());
    io.out(`\ncompare reports: ${written.join(', ')}`);
    return EXIT[cmp.verdict.status];
  },
};
