/**
 * Where a generator's CPU goes, from a Linux `perf` profile of its whole process (every thread,
 * kernel included), split into the parts a comparison with the bare Pool needs: undici's writing,
 * reading and dispatching, jobstorm's checks, its fold and metrics, its client and pacer, the
 * garbage collector, the JIT, the kernel, and the rest (Node's own streams and loop, the
 * script's own code: for the Pool script, its whole loop).
 *
 * Why perf and not `node --cpu-prof`: on the run-only flow at 8,000 requests/s, V8's profiler
 * sampled 2.0 s busy (the rest `(idle)`) of a process whose main thread spent 5.7 s on CPU
 * (/proc), so its shares were of a third of the work. perf samples on-CPU time on every thread,
 * the kernel's included, whatever the thread is doing.
 *
 * perf is Debian's `linux-perf`. Profile tsc's output, dist/src/cli/main.js: the bundle's chunks
 * (dist/cli/) do not name their modules, so jobstorm's parts would not be told apart.
 *
 *   node --perf-basic-prof dist/src/cli/main.js run …   (or the Pool script) pinned to a core, then:
 *   perf record -F 999 -g -p <pid> -o perf.data -- sleep 8   (from 5 s in: inside the run)
 *   perf script -i perf.data > perf.txt
 *   npx tsx bench/perf-split.ts perf.txt [requests in the profiled seconds]
 *
 * With the requests sent during the profiled seconds, each part is also given in µs per request
 * (perf's samples at -F 999 are ~1 ms of CPU each). A sample goes to the first part, in the
 * order below, whose pattern some frame of its stack matches.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PARTS: readonly (readonly [string, RegExp])[] = [
  ['jobstorm checks', /check\/checker\.js|core\/turn-batch\.js/],
  ['jobstorm record tap (route watch)', /runner\/record-tap\.js/],
  ['jobstorm fold + metrics', /session\/record-path\.js/],
  ['jobstorm runner emit, other', /runner\/runner\.js/],
  ['undici write', /writeH1/],
  ['undici read + parse', /onHttpSocketReadable|client-h1\.js|wasm/],
  ['undici dispatch', /undici/],
  ['jobstorm client', /client\/transport\.js|client\/job-client\.js|buffered-response\.js/],
  ['jobstorm pacer + steps', /pacer\.js|runner\/dispatcher\.js|step-table\.js|submission\.js|iteration\.js/],
  ['timers', /timers/],
  ['garbage collector', /Scaveng|MarkCompact|Heap::|Marking|Sweeper|GarbageCollect/],
  ['JIT', /compiler::|Compile|Maglev|Turbofan/],
  ['waiting in epoll', /epoll_wait|epoll_pwait/],
];

/** One perf sample: its thread and its stack, leaf first. */
interface Sample {
  tid: string;
  frames: string[];
}

function samplesOf(text: string): Sample[] {
  const out: Sample[] = [];
  let cur: Sample | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (!line.startsWith(' ') && !line.startsWith('\t')) {
      // A header: "comm  tid  time:  period cpu-clock:…".
      cur = { tid: line.trim().split(/\s+/)[1] ?? '?', frames: [] };
      out.push(cur);
    } else cur?.frames.push(line.trim().replace(/^[0-9a-f]+ /, ''));
  }
  return out;
}

/** Each part's samples, the kernel's and the rest's, and the main thread's share. */
export function split(text: string): { total: number; mainShare: number; parts: Map<string, number> } {
  const samples = samplesOf(text);
  const byTid = new Map<string, number>();
  for (const s of samples) byTid.set(s.tid, (byTid.get(s.tid) ?? 0) + 1);
  const main = Math.max(0, ...byTid.values());
  const parts = new Map<string, number>();
  for (const s of samples) {
    const stack = s.frames.join(' | ');
    const part =
      PARTS.find(([, re]) => re.test(stack))?.[0] ??
      (s.frames[0]?.includes('kernel') === true
        ? 'kernel, other'
        : "other (Node's streams and loop, the script's own code)");
    parts.set(part, (parts.get(part) ?? 0) + 1);
  }
  return { total: samples.length, mainShare: samples.length === 0 ? 0 : main / samples.length, parts };
}

const file = process.argv[2];
if (file !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const requests = Number(process.argv[3] ?? Number.NaN);
  const { total, mainShare, parts } = split(readFileSync(file, 'utf8'));
  console.log(
    `${String(total)} samples (~${(total / 999).toFixed(2)} s of CPU), ${(mainShare * 100).toFixed(0)} % on the main thread`,
  );
  for (const [name, n] of [...parts].sort((a, b) => b[1] - a[1])) {
    const us =
      Number.isFinite(requests) && requests > 0
        ? `  ${(((n / 999) * 1e6) / requests).toFixed(2).padStart(6)} µs/req`
        : '';
    console.log(`${((n / total) * 100).toFixed(1).padStart(5)} %${us}  ${name}`);
  }
}
