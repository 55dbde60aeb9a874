import { LatencyHistogram } from './histogram.js';
import type { TokenObjectives, TokenSettings } from '../core/token-definition.js';
import { tokenTimings, type OutputCount, type TokenDefinition, type TokenTimeline } from './token-timing.js';

/**
 * Token timings of streamed answers (docs/llm.md): `/openai/*` streams and `/run` jobs read through
 * `/stream`, kept apart by path and by how their output was counted (`tokens` or `chunks`), so no
 * figure mixes the two. Goodput counts the answers that met every objective the scenario set.
 */
export type OutputPath = 'openai' | 'stream';

export type { TokenObjectives, TokenSettings } from '../core/token-definition.js';

export const DEFAULT_TOKEN_SETTINGS: TokenSettings = { definition: 'jobstorm', objectives: {} };

/** One group's figures (a path and a count), histograms as `LatencyHistogram.encode()`. */
export interface TokenGroupData {
  path: OutputPath;
  counted: OutputCount;
  /** Answers with output. */
  answers: number;
  outputTokens: number;
  ttft: string;
  itl: string;
  tpot: string;
  e2e: string;
  /** Output tokens (or chunks) per second of each answer; one "ms" is one per second. */
  perSecond: string;
  /** `/stream` jobs: the job's queue wait (`delayTime`), and from there to the first token. */
  queue?: string;
  toFirstAfterQueue?: string;
  /**
   * The queue wait split by the `/health` samples: the part while workers were initializing (the
   * job's cold start) and the rest. Absent when no sample could tell (no `workers.initializing`).
   */
  queueCold?: string;
  queueWarm?: string;
}

export interface TokenData {
  definition: TokenDefinition;
  objectives: TokenObjectives;
  groups: TokenGroupData[];
  /** Streamed requests judged for goodput (with or without output), and those that met every objective. */
  judged: number;
  good: number;
}

/** One answer as the stats take it. */
export interface StreamedAnswer {
  path: OutputPath;
  /** Its output's timeline and count; undefined when it carried none. */
  output: { timeline: TokenTimeline; counted: OutputCount } | undefined;
  /** The answer succeeded (a 2xx stream without an error event, a COMPLETED job). */
  ok: boolean;
  /** A `/stream` job's queue wait, when its final status gave one. */
  queueMs?: number;
  /** Of that wait, the time workers were initializing (ScalingTrack.coldMsOfWait), when known. */
  coldMs?: number;
}

class TokenGroup {
  answers = 0;
  outputTokens = 0;
  readonly ttft = LatencyHistogram.create();
  readonly itl = LatencyHistogram.create();
  readonly tpot = LatencyHistogram.create();
  readonly e2e = LatencyHistogram.create();
  readonly perSecond = LatencyHistogram.create();
  readonly queue = LatencyHistogram.create();
  readonly toFirstAfterQueue = LatencyHistogram.create();
  readonly queueCold = LatencyHistogram.create();
  readonly queueWarm = LatencyHistogram.create();

  constructor(
    readonly path: OutputPath,
    readonly counted: OutputCount,
  ) {}

  merge(o: TokenGroup): void {
    this.answers += o.answers;
    this.outputTokens += o.outputTokens;
    for (const k of HISTOGRAMS) this[k].merge(o[k]);
  }

  toJSON(): TokenGroupData {
    const d: TokenGroupData = {
      path: this.path,
      counted: this.counted,
      answers: this.answers,
      outputTokens: round(this.outputTokens),
      ttft: this.ttft.encode(),
      itl: this.itl.encode(),
      tpot: this.tpot.encode(),
      e2e: this.e2e.encode(),
      perSecond: this.perSecond.encode(),
    };
    if (this.queue.count > 0) {
      d.queue = this.queue.encode();
      d.toFirstAfterQueue = this.toFirstAfterQueue.encode();
    }
    if (this.queueCold.count > 0) {
      d.queueCold = this.queueCold.encode();
      d.queueWarm = this.queueWarm.encode();
    }
    return d;
  }

  static fromJSON(d: TokenGroupData): TokenGroup {
    const g = new TokenGroup(d.path, d.counted);
    g.answers = d.answers;
    g.outputTokens = d.outputTokens;
    for (const k of HISTOGRAMS) {
      const encoded = d[k];
      if (encoded !== undefined) g[k].merge(LatencyHistogram.decode(encoded));
    }
    return g;
  }
}

const HISTOGRAMS = [
  'ttft',
  'itl',
  'tpot',
  'e2e',
  'perSecond',
  'queue',
  'toFirstAfterQueue',
  'queueCold',
  'queueWarm',
] as const;

export class TokenStats {
  private readonly groups = new Map<string, TokenGroup>();
  judged = 0;
  good = 0;

  constructor(readonly settings: TokenSettings = DEFAULT_TOKEN_SETTINGS) {}

  get answers(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.answers;
    return n;
  }

  add(a: StreamedAnswer): void {
    this.judged++;
    const out = a.output;
    const t = out === undefined ? undefined : tokenTimings(out.timeline, this.settings.definition);
    if (out === undefined || t === undefined) return;
    const g = this.group(a.path, out.counted);
    g.answers++;
    g.outputTokens += t.outputTokens;
    g.ttft.recordMs(t.ttftMs);
    g.e2e.recordMs(t.e2eMs);
    if (t.tpotMs !== null) g.tpot.recordMs(t.tpotMs);
    for (const x of t.itlMs) g.itl.recordMs(x);
    if (t.tokensPerSecond !== null) g.perSecond.recordMs(t.tokensPerSecond);
    if (a.queueMs !== undefined) {
      g.queue.recordMs(a.queueMs);
      g.toFirstAfterQueue.recordMs(Math.max(0, t.ttftMs - a.queueMs));
      if (a.coldMs !== undefined) {
        const cold = Math.min(a.coldMs, a.queueMs);
        g.queueCold.recordMs(cold);
        g.queueWarm.recordMs(a.queueMs - cold);
      }
    }
    if (a.ok && meets(t, this.settings.objectives)) this.good++;
  }

  merge(other: TokenStats): this {
    this.judged += other.judged;
    this.good += other.good;
    for (const [key, g] of other.groups) this.group(g.path, g.counted, key).merge(g);
    return this;
  }

  toJSON(): TokenData {
    return {
      definition: this.settings.definition,
      objectives: { ...this.settings.objectives },
      groups: [...this.groups.keys()].sort().map((k) => (this.groups.get(k) as TokenGroup).toJSON()),
      judged: this.judged,
      good: this.good,
    };
  }

  static fromJSON(d: TokenData): TokenStats {
    const s = new TokenStats({ definition: d.definition, objectives: { ...d.objectives } });
    s.judged = d.judged;
    s.good = d.good;
    for (const g of d.groups) s.group(g.path, g.counted).merge(TokenGroup.fromJSON(g));
    return s;
  }

  private group(path: OutputPath, counted: OutputCount, key = `${path}/${counted}`): TokenGroup {
    let g = this.groups.get(key);
    if (g === undefined) {
      g = new TokenGroup(path, counted);
      this.groups.set(key, g);
    }
    return g;
  }
}

/** Whether one answer met every objective set (a TPOT the formula leaves undefined is met). */
function meets(
  t: { ttftMs: number; e2eMs: number; tpotMs: number | null; itlMs: number[] },
  o: TokenObjectives,
): boolean {
  if (o.ttftMs !== undefined && t.ttftMs > o.ttftMs) return false;
  if (o.e2eMs !== undefined && t.e2eMs > o.e2eMs) return false;
  if (o.tpotMs !== undefined && t.tpotMs !== null && t.tpotMs > o.tpotMs) return false;
  return o.itlMs === undefined || t.itlMs.every((x) => x <= (o.itlMs ?? Infinity));
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
