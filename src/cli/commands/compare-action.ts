import { CHECK_IDS } from '../../check/catalog.js';
import { dirname, join } from 'node:path';
import { compareRuns } from '../../compare/comparison.js';
import { writeComparison } from '../../compare/compare-writer.js';
import { parseGates, type GateSource } from '../../compare/gate.js';
import { readRun, summaryPath } from '../../compare/run-input.js';
import { renderCompareText } from '../../compare/compare-text.js';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { ExitCode } from '../../core/exit-code.js';
import type { Summary } from '../../report/summary.js';
import { loadScenario } from '../../scenario/scenario-loader.js';
import type { JobstormCommand } from '../command.js';
import type { CompareArgs } from './compare-args.js';

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

async function gateSources(
  args: CompareArgs,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ sources: GateSource[]; significance: number | undefined }> {
  const sources: GateSource[] = [];
  let significance: number | undefined;
  if (args.scenario !== undefined) {
    const scenario = await loadScenario(args.scenario, { env: { ...env } });
    (scenario.compare?.gates ?? []).forEach((expression, i) =>
      sources.push({ expression, where: `${args.scenario ?? ''}: compare.gates[${i}]` }),
    );
    significance = scenario.compare?.significance;
  }
  for (const expression of args.gate ?? []) sources.push({ expression, where: '--gate' });
  if (args.significance !== undefined) {
    if (!(args.significance > 0 && args.significance < 1)) {
      throw new ConfigError([
        {
          where: '--significance',
          message: `a confidence level between 0 and 1 (e.g. 0.95), not ${String(args.significance)}`,
        },
      ]);
    }
    significance = args.significance;
  }
  return { sources, significance };
}

function jobNoise(value: number): number {
  if (!(value >= 0 && value < 1))
    throw new ConfigError([
      { where: '--job-noise', message: `a fraction between 0 and 1 (e.g. 0.05), not ${String(value)}` },
    ]);
  return value;
}

/** What `compare` does once its arguments parsed; loaded only when the command runs. */
export const compareAction: Pick<JobstormCommand<CompareArgs>, 'run'> = {
  run: async (args, io) => {
    const baselineInput = args.baseline ?? '';
    const currentInput = args.current ?? '';
    const { sources, significance } = await gateSources(args, io.env);
    const gates = parseGates(sources, { checkIds: CHECK_IDS });
    const [baseline, current] = await readBoth(baselineInput, currentInput);
    const cmp = compareRuns(baseline, current, {
      baselineSource: baselineInput,
      currentSource: currentInput,
      gates,
      significance: significance ?? null,
      force: args.force ?? false,
      seed: args.seed,
      ...(args['job-noise'] !== undefined ? { jobNoise: jobNoise(args['job-noise']) } : {}),
    });
    const out = args.out ?? join(dirname(await summaryPath(currentInput)), 'compare');
    const written = await writeComparison(cmp, baseline, current, out, {
      stepSummaryPath: io.env.GITHUB_STEP_SUMMARY || undefined,
    });
    io.out(renderCompareText(cmp).trimEnd());
    io.out(`\ncompare reports: ${written.join(', ')}`);
    return EXIT[cmp.verdict.status];
  },
};
