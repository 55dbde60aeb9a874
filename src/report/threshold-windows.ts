import type { SecondSource } from '../metrics/second-series.js';
import type { ThresholdWindowResult } from './summary.js';
import { compare, type Comparator, type Threshold } from './threshold.js';
import type { SecondReader, SecondSample } from './threshold-readers.js';
import { ThresholdTally } from './threshold-tally.js';

/**
 * Windows slide by whole seconds: a threshold `over 30s` holds when every run of 30 consecutive
 * seconds of the per-second series holds it (a collapse is never split between two tumbling
 * windows, and the worst window is the worst there was). Seconds are wall-clock seconds of the
 * records' end, as the series keeps them, so shards merged second by second give the same windows
 * as one process. A run shorter than the window is judged as one window. A window with nothing to
 * judge (a rate with no requests, a percentile with no answers) is skipped; none at all fails.
 */
export interface WindowFrame {
  /** The epoch second of t+0: the run's start. */
  baseSec: number;
  /** The first second judged: the run's first, or the first whole second after the warm-up. */
  firstSec: number;
}

export function windowFrame(startMs: number, warmupMs = 0): WindowFrame {
  const baseSec = Math.floor(startMs / 1000);
  return { baseSec, firstSec: warmupMs > 0 ? Math.ceil((startMs + warmupMs) / 1000) : baseSec };
}

const EMPTY: SecondSample = { count: 0, base: 0 };

/** The sample a second gives the reader; a second with nothing in it gives zeros. */
export function sampleAt(source: SecondSource, reader: SecondReader, sec: number): SecondSample {
  const second = source.second(sec);
  return second ? reader(second) : EMPTY;
}

/** `b` is worse than `a` for this comparator: further from passing, or failing where `a` passed. */
function worse(a: number, b: number, c: Comparator, target: number): boolean {
  if (c === '<' || c === '<=') return b > a;
  if (c === '>' || c === '>=') return b < a;
  return compare(a, c, target) && !compare(b, c, target);
}

/** The windowed judgement and its headline: the worst window's value, and whether every window held. */
export interface WindowVerdict {
  value: number | null;
  ok: boolean;
  window: ThresholdWindowResult;
}

class WindowWalk {
  readonly result: ThresholdWindowResult;

  constructor(
    private readonly t: Threshold & { windowS: number },
    private readonly frame: WindowFrame,
  ) {
    this.result = { seconds: t.windowS, judged: 0, failed: 0, worst: null, failing: [] };
  }

  /** Judges the window of `tally`'s seconds, whose last second is `lastSec`. */
  judge(tally: ThresholdTally, lastSec: number): void {
    const value = tally.value(this.t.aggregation);
    if (value === null) return;
    const r = this.result;
    const from = lastSec - tally.seconds + 1 - this.frame.baseSec;
    r.judged++;
    if (r.worst === null || worse(r.worst.value, value, this.t.comparator, this.t.target))
      r.worst = { at: from, value };
    if (compare(value, this.t.comparator, this.t.target)) return;
    r.failed++;
    const to = lastSec + 1 - this.frame.baseSec;
    const span = r.failing.at(-1);
    if (span && span[1] >= from) span[1] = to;
    else r.failing.push([from, to]);
  }
}

/** Every window of the series, judged; the worst one is the threshold's value. */
export function judgeWindows(
  t: Threshold & { windowS: number },
  reader: SecondReader,
  source: SecondSource,
  frame: WindowFrame,
): WindowVerdict {
  const walk = new WindowWalk(t, frame);
  const span = source.span();
  if (span) {
    const first = Math.max(span.first, frame.firstSec);
    const short = span.last - first + 1 < t.windowS;
    const tally = new ThresholdTally();
    for (let sec = first; sec <= span.last; sec++) {
      tally.push(sampleAt(source, reader, sec));
      if (tally.seconds > t.windowS) tally.shift();
      if (tally.seconds === t.windowS || (short && sec === span.last)) walk.judge(tally, sec);
    }
  }
  const r = walk.result;
  return { value: r.worst?.value ?? null, ok: r.judged > 0 && r.failed === 0, window: r };
}
