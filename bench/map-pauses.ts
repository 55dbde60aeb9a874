/**
 * The loop pauses of a per-job map held at its cap (issue 52): V8 rebuilds a Map's whole table
 * inside one `set` when it grows or has filled with deleted slots, and a run's per-job maps hold up
 * to 200,000 jobs (run-limits.ts), so a soak pauses the loop every few hundred thousand jobs.
 * Inserts `sets` fresh ids, one per job, into a map capped at `cap` (each set past the cap drops
 * the oldest), twice each way in turn: a plain Map with the drop done by hand by key, and the
 * CappedMap (whose drop walks a long-lived iterator). Prints the longest single sets (with and net
 * of any GC inside them) and the mean cost per set (each set timed, so the clock reads are in it).
 * bench/README ("The per-job maps") has what splitting the maps into parts did to a whole run.
 *
 *   npx tsx bench/map-pauses.ts [cap=200000] [sets=1500000]
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CappedMap } from '../src/core/capped-map.js';

const cap = Number(process.argv[2] ?? 200_000);
const sets = Number(process.argv[3] ?? 1_500_000);
if (!Number.isInteger(cap) || cap < 1 || !Number.isInteger(sets) || sets <= cap) {
  console.error('usage: npx tsx bench/map-pauses.ts [cap=200000] [sets=1500000] (sets > cap)');
  process.exit(2);
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
// The ids as the runner gets them: parsed from answers, so internalized strings, made up front so
// that making them is not timed.
const ids = Array.from({ length: sets }, (_, i) => (JSON.parse(`{"id":"job-${String(i)}"}`) as { id: string }).id);
const gcs: [number, number][] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ['gc'] });

interface Pauses {
  gross: number[];
  net: number[];
  nsPerSet: number;
}

async function measure(set: (id: string, i: number) => void): Promise<Pauses> {
  gc();
  gcs.length = 0;
  const slow: [number, number][] = [];
  const t0 = performance.now();
  for (let i = 0; i < sets; i++) {
    const t = performance.now();
    set(ids[i] as string, i);
    const d = performance.now() - t;
    if (d > 0.5) slow.push([t, d]);
  }
  const total = performance.now() - t0;
  // GC entries arrive after the fact.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const inGc = ([t, d]: [number, number]): number =>
    gcs.reduce((s, [a, b]) => s + Math.max(0, Math.min(b, t + d) - Math.max(a, t)), 0);
  const top = (xs: number[]): number[] => xs.sort((a, b) => b - a).slice(0, 5);
  return {
    gross: top(slow.map(([, d]) => d)),
    net: top(slow.map((s) => s[1] - inGc(s))),
    nsPerSet: (total * 1e6) / sets,
  };
}

function plain(): (id: string, i: number) => void {
  const m = new Map<string, number>();
  let oldest = 0;
  return (id, i) => {
    m.set(id, i);
    if (m.size > cap) m.delete(ids[oldest++] as string);
  };
}

function capped(): (id: string, i: number) => void {
  const m = new CappedMap<string, number>(cap);
  return (id, i) => m.set(id, i);
}

const ms = (xs: number[]): string => xs.map((x) => x.toFixed(1)).join(' ');
console.log(`${String(sets)} sets, cap ${String(cap)}`);
for (let round = 1; round <= 2; round++) {
  for (const [name, make] of [
    ['plain Map', plain],
    ['CappedMap', capped],
  ] as const) {
    const p = await measure(make());
    console.log(
      `round ${String(round)} ${name.padEnd(9)}  longest sets (ms) ${ms(p.gross).padEnd(24)} net of GC ${ms(p.net).padEnd(24)} ${p.nsPerSet.toFixed(0)} ns/set`,
    );
  }
}
