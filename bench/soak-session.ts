/**
 * The child of `bench/soak-memory.ts --small-caps`: one run session, as `jobstorm run` assembles
 * it against a remote target (every check on, the CLI's heap growth), but with the session's
 * `limits` at a tenth of RunLimits' defaults, which the CLI has no switch for: the caps then fill
 * within the first half minute at 3,000 arrivals/s, so a run of a few minutes shows what the
 * default caps do after about four. Writes the summary as JSON to the file given.
 *
 *   node --expose-gc --import tsx bench/soak-session.ts <scenario.yaml> <origin> <summary.json>
 */
import { readFile, writeFile } from 'node:fs/promises';
import { steadyHeapGrowth } from '../src/cli/heap-growth.js';
import { systemClock } from '../src/core/clock.js';
import { DEFAULT_RUN_LIMITS, type RunLimits } from '../src/core/run-limits.js';
import { parseScenario } from '../src/scenario/scenario-parser.js';
import { RunSession } from '../src/session/run-session.js';

const [file = '', origin = '', out = ''] = process.argv.slice(2);
steadyHeapGrowth(process.execArgv);

/** RunLimits' defaults over ten (at least one each). */
const limits = Object.fromEntries(
  Object.entries(DEFAULT_RUN_LIMITS).map(([k, v]) => [k, Math.max(1, Math.round(v / 10))]),
) as Record<keyof RunLimits, number>;

const scenario = parseScenario(await readFile(file, 'utf8'), file, { env: {} });
const session = new RunSession({
  clock: systemClock,
  scenario,
  runId: 'soak-session',
  target: { baseUrl: `${origin}/v2/ep`, apiKey: 'bench-key', ownsEndpoint: false },
  limits,
});
await session.run();
await writeFile(out, JSON.stringify(await session.finish()));
