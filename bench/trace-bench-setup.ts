/**
 * Shared by the trace-replay benches: a Mooncake trace written row by row (never held whole), with
 * seeded Poisson arrivals (exponential gaps) at a given rate, and the scenario that replays it
 * with one `run` a row against the bare flow server.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseScenario } from '../src/scenario/scenario-parser.js';
import type { Scenario } from '../src/scenario/scenario.js';
import { SeededRandom } from '../src/core/seeded-random.js';

/** Writes `rows` rows at `perSecond` rows a second of trace time; returns the last row's timestamp. */
export async function writeMooncakeTrace(file: string, rows: number, perSecond: number, seed = 49): Promise<number> {
  const out = createWriteStream(file);
  const random = new SeededRandom(seed);
  const meanGapMs = 1000 / perSecond;
  let t = 0;
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    t += -Math.log(1 - random.next()) * meanGapMs;
    chunk += `{"timestamp": ${t.toFixed(3)}, "input_length": ${String(100 + (i % 400))}, "output_length": ${String(20 + (i % 200))}, "hash_ids": [${String(i % 97)}]}\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return t;
}

/** One `run` a row (label `1:run`, which runFlow reads lateness from), its max_tokens the row's. */
export function replayScenario(file: string, replay: string): Scenario {
  return parseScenario(
    `name: bench-trace-replay
target: { connections: 64, maxInFlight: 20000, timeout: 10s }
phases:
  - replay: { file: ${JSON.stringify(file)}, format: mooncake${replay} }
flows:
  - name: replay
    steps:
      - run: { input: { max_tokens: "{{trace.outputTokens}}" } }
`,
    'bench-trace-replay.yaml',
  );
}
