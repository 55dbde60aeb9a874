import { flowStepRules } from '../steps/index.js';
import type { FeedRows } from './data-feed.js';
import { formatDuration } from './duration.js';
import type { KeyPath, PathIssue } from './path-format.js';
import { formatPath } from './path-format.js';
import { isRecord, list, ms, type Raw } from './raw-value.js';

/*
 * Rules that involve more than one field. They read the raw document (not the schema's output)
 * so that they run even when the schema found other problems: the user gets every error at once.
 * Each rule looks only at values of the expected type and leaves wrong types to the schema. The
 * rules of each step kind live in its own file (src/steps/).
 */

/** A replay phase plays the trace's own times: nothing else may shape its arrivals. */
function replayRules(phase: Raw, path: KeyPath): PathIssue[] {
  const others = (['rate', 'ramp', 'vus', 'count', 'duration'] as const).filter(
    (k) => phase[k] !== undefined,
  );
  const issues: PathIssue[] = others.map((k) => ({
    path: [...path, k],
    message: `a replay phase takes its arrivals from the trace; it takes no ${k}`,
    atKey: true,
  }));
  const replay = phase.replay;
  if (isRecord(replay)) {
    const [from, to] = [ms(replay.from) ?? 0, ms(replay.to)];
    if (to !== undefined && to <= from)
      issues.push({
        path: [...path, 'replay', 'to'],
        message: `must be after from (${formatDuration(from)})`,
      });
  }
  return issues;
}

function phaseRules(phase: unknown, path: KeyPath): PathIssue[] {
  if (!isRecord(phase)) return [];
  if (phase.replay !== undefined) return replayRules(phase, path);
  const shapes = (['rate', 'ramp', 'vus'] as const).filter((k) => phase[k] !== undefined);
  const issues: PathIssue[] = [];
  if (phase.count !== undefined) {
    for (const k of shapes.filter((s) => s !== 'rate')) {
      issues.push({
        path: [...path, k],
        message: `a count phase takes a rate or nothing, not ${k}`,
        atKey: true,
      });
    }
    if (phase.duration !== undefined) {
      issues.push({
        path: [...path, 'duration'],
        message: 'a count phase takes no duration: it lasts count / rate',
        atKey: true,
      });
    }
    return issues;
  }
  if (shapes.length === 0) {
    return [
      { path, message: 'a phase needs one of rate, ramp, vus (each with a duration), count or replay' },
    ];
  }
  if (shapes.length > 1) {
    issues.push({
      path: [...path, shapes[1] ?? ''],
      message: `a phase takes exactly one of rate, ramp, vus; found ${shapes.join(' and ')}`,
      atKey: true,
    });
  }
  if (phase.duration === undefined) {
    issues.push({ path, message: `a phase with ${shapes[0] ?? ''} needs a duration` });
  }
  return issues;
}

function flowRules(
  doc: Raw,
  columns: ReadonlySet<string> | undefined,
  feed: FeedRows | undefined,
): PathIssue[] {
  const emulator = isRecord(doc.emulator) ? doc.emulator : {};
  const issues: PathIssue[] = [];
  const seen = new Map<string, number>();
  list(doc.flows).forEach((flow, i) => {
    if (!isRecord(flow)) return;
    if (typeof flow.name === 'string') {
      const first = seen.get(flow.name);
      if (first !== undefined)
        issues.push({
          path: ['flows', i, 'name'],
          message: `duplicate flow name "${flow.name}" (also ${formatPath(['flows', first])})`,
        });
      else seen.set(flow.name, i);
    }
    const replays = list(doc.phases).flatMap((p) => (isRecord(p) && p.replay !== undefined ? [p.replay] : []));
    const settings = {
      manualClock: emulator.clock === 'manual',
      hasData: doc.data !== undefined,
      hasTrace: replays.length > 0,
      hasJobTrace: replays.some((r) => isRecord(r) && r.format === 'jobstorm'),
      columns,
      feed,
    };
    issues.push(...flowStepRules(flow.steps, ['flows', i, 'steps'], settings));
  });
  return issues;
}

/** How long the raw phases last, or undefined when one of them is malformed (the schema says why). */
function scheduleMs(phases: readonly unknown[]): number | undefined {
  let total = 0;
  for (const p of phases) {
    // A replay lasts as long as its trace, known once the file is read.
    if (!isRecord(p) || p.replay !== undefined) return undefined;
    if (p.count !== undefined) {
      const rate = p.rate === undefined ? 0 : p.rate;
      if (typeof p.count !== 'number' || typeof rate !== 'number') return undefined;
      total += rate > 0 ? (p.count / rate) * 1000 : 0;
      continue;
    }
    const d = ms(p.duration);
    if (d === undefined) return undefined;
    total += d;
  }
  return total;
}

/** A warm-up as long as the schedule would leave nothing measured: every verdict would be empty. */
function warmupRule(doc: Raw): PathIssue[] {
  const warmup = ms(doc.warmup);
  if (warmup === undefined || warmup <= 0) return [];
  const total = scheduleMs(list(doc.phases));
  if (total === undefined || warmup < total) return [];
  return [
    {
      path: ['warmup'],
      message: `must be shorter than the phases (${formatDuration(total)} in all), or nothing is measured`,
    },
  ];
}

function boundRules(doc: Raw): PathIssue[] {
  const issues: PathIssue[] = [];
  const e = doc.emulator;
  if (
    isRecord(e) &&
    typeof e.workersMin === 'number' &&
    typeof e.workersMax === 'number' &&
    e.workersMin > e.workersMax
  ) {
    issues.push({
      path: ['emulator', 'workersMin'],
      message: `must not exceed workersMax (${e.workersMax})`,
    });
  }
  const w = doc.worker;
  if (isRecord(w)) {
    const emulator = isRecord(e) ? e : {};
    const min = typeof w.workersMin === 'number' ? w.workersMin : emulator.workersMin;
    const max = typeof w.workersMax === 'number' ? w.workersMax : emulator.workersMax;
    if (typeof min === 'number' && typeof max === 'number' && min > max) {
      issues.push({
        path: ['worker', typeof w.workersMin === 'number' ? 'workersMin' : 'workersMax'],
        message: `workersMin (${String(min)}) must not exceed workersMax (${String(max)})`,
      });
    }
    if (emulator.clock === 'manual')
      issues.push({
        path: ['worker'],
        message: 'real workers need emulator.clock: real (their long-polls and heartbeats run on wall time)',
        atKey: true,
      });
  }
  const r = isRecord(doc.target) ? doc.target.retry429 : undefined;
  if (isRecord(r)) {
    const [base, max] = [ms(r.base), ms(r.max)];
    if (base !== undefined && max !== undefined && base > max)
      issues.push({ path: ['target', 'retry429', 'base'], message: 'must not exceed max' });
  }
  return issues;
}

/**
 * `columns`: the data feed's columns once it is loaded, to check {{row.field}} against; `feed`: its
 * rows, to check the values {{length:row.field}} reads.
 */
export function crossFieldIssues(doc: unknown, columns?: ReadonlySet<string>, feed?: FeedRows): PathIssue[] {
  if (!isRecord(doc)) return [];
  return [
    ...list(doc.phases).flatMap((p, i) => phaseRules(p, ['phases', i])),
    ...flowRules(doc, columns, feed),
    ...boundRules(doc),
    ...warmupRule(doc),
  ];
}
