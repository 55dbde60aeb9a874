import { sentToBeRefused, type ExchangeRecord } from '../core/record.js';
import { increment, mergeCounts, sortedCounts, type Counts } from './counts.js';
import { LatencyHistogram } from './histogram.js';
import type { OperationData } from './metrics-data.js';
import { OUTCOMES, outcomeOf, statusKey, type Outcome } from './outcome.js';

interface OutcomeStats {
  intended: LatencyHistogram;
  sent: LatencyHistogram;
}

/** Everything kept about one operation: counters and a pair of histograms per outcome. */
export class OperationStats {
  requests = 0;
  reqBytes = 0;
  resBytes = 0;
  /** 4xx answers to requests sent to be refused (probes, the preflight): see `sentToBeRefused`. */
  probe4xx = 0;
  readonly byStatus: Counts = {};
  readonly errors: Counts = {};
  /** Created on first use: most runs see two or three outcomes per operation, not six. */
  readonly outcomes = new Map<Outcome, OutcomeStats>();

  add(r: ExchangeRecord): void {
    this.requests++;
    this.reqBytes += r.reqBytes;
    this.resBytes += r.resBytes;
    increment(this.byStatus, statusKey(r));
    if (r.error) increment(this.errors, r.error.kind);
    const outcome = outcomeOf(r);
    if (outcome === '4xx' && sentToBeRefused(r)) this.probe4xx++;
    const o = this.outcome(outcome);
    o.intended.recordMs(r.endAt - r.intendedAt);
    o.sent.recordMs(r.endAt - r.sentAt);
  }

  merge(other: OperationStats): void {
    this.requests += other.requests;
    this.reqBytes += other.reqBytes;
    this.resBytes += other.resBytes;
    this.probe4xx += other.probe4xx;
    mergeCounts(this.byStatus, other.byStatus);
    mergeCounts(this.errors, other.errors);
    for (const [name, o] of other.outcomes) {
      const mine = this.outcome(name);
      mine.intended.merge(o.intended);
      mine.sent.merge(o.sent);
    }
  }

  /** All outcomes together, for the operation's headline percentiles. */
  combined(which: 'intended' | 'sent'): LatencyHistogram {
    const all = LatencyHistogram.create();
    for (const o of this.outcomes.values()) all.merge(o[which]);
    return all;
  }

  toJSON(): OperationData {
    const outcomes: OperationData['outcomes'] = {};
    for (const name of OUTCOMES) {
      const o = this.outcomes.get(name);
      if (o)
        outcomes[name] = { count: o.intended.count, intended: o.intended.encode(), sent: o.sent.encode() };
    }
    return {
      requests: this.requests,
      byStatus: sortedCounts(this.byStatus),
      errors: sortedCounts(this.errors),
      outcomes,
      reqBytes: this.reqBytes,
      resBytes: this.resBytes,
      ...(this.probe4xx > 0 ? { probe4xx: this.probe4xx } : {}),
    };
  }

  static fromJSON(data: OperationData): OperationStats {
    const s = new OperationStats();
    s.requests = data.requests;
    s.reqBytes = data.reqBytes;
    s.resBytes = data.resBytes;
    s.probe4xx = data.probe4xx ?? 0;
    mergeCounts(s.byStatus, data.byStatus);
    mergeCounts(s.errors, data.errors);
    for (const name of OUTCOMES) {
      const o = data.outcomes[name];
      if (o)
        s.outcomes.set(name, {
          intended: LatencyHistogram.decode(o.intended),
          sent: LatencyHistogram.decode(o.sent),
        });
    }
    return s;
  }

  private outcome(name: Outcome): OutcomeStats {
    let o = this.outcomes.get(name);
    if (!o) {
      o = { intended: LatencyHistogram.create(), sent: LatencyHistogram.create() };
      this.outcomes.set(name, o);
    }
    return o;
  }
}
