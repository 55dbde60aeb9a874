import type { FeedRows } from '../scenario/data-feed.js';
import type { KeyPath, PathIssue } from '../scenario/path-format.js';
import { isRecord, list } from '../scenario/raw-value.js';
import type { FlowFacts } from './step-kind.js';
import { stepKind } from './step-table.js';

/*
 * The cross-field rules of a flow's steps, read from the raw document so that they run even when
 * the schema found other problems. Each kind's own rules come from its file; what every step shares
 * (a job step needs a job before it) is here.
 */

/** What a flow's rules know of the scenario around it. */
export interface FlowSettings {
  readonly manualClock: boolean;
  readonly hasData: boolean;
  /** A phase replays a trace. */
  readonly hasTrace: boolean;
  /** A phase replays a job trace (format jobstorm). */
  readonly hasJobTrace: boolean;
  /** Columns of the loaded data feed, when there is one. */
  readonly columns: ReadonlySet<string> | undefined;
  /** Rows of the loaded data feed, when there is one. */
  readonly feed?: FeedRows | undefined;
}

/** One walk through a flow: every level of loops shares whether a job was submitted yet. */
class FlowWalk implements FlowFacts {
  readonly manualClock: boolean;
  readonly hasData: boolean;
  readonly hasTrace: boolean;
  readonly hasJobTrace: boolean;
  readonly columns: ReadonlySet<string> | undefined;
  readonly feed: FeedRows | undefined;

  constructor(
    settings: FlowSettings,
    readonly depth: number,
    private readonly job: { submitted: boolean },
  ) {
    this.manualClock = settings.manualClock;
    this.hasData = settings.hasData;
    this.hasTrace = settings.hasTrace;
    this.hasJobTrace = settings.hasJobTrace;
    this.columns = settings.columns;
    this.feed = settings.feed;
  }

  get hasJob(): boolean {
    return this.job.submitted;
  }

  set hasJob(value: boolean) {
    this.job.submitted = value;
  }

  nested(steps: unknown, at: KeyPath): PathIssue[] {
    return listRules(steps, at, new FlowWalk(this, this.depth + 1, this.job));
  }
}

function stepRules(step: unknown, path: KeyPath, flow: FlowFacts): PathIssue[] {
  if (!isRecord(step)) return [];
  const keys = Object.keys(step);
  const name = keys[0];
  const kind = keys.length === 1 && name !== undefined ? stepKind(name) : undefined;
  if (kind === undefined) return [];
  const at = [...path, kind.name];
  const issues: PathIssue[] = [];
  if (kind.needsJob && !flow.hasJob) {
    issues.push({
      path: at,
      message: `${kind.name} acts on the flow's job: put a run or runsync step before it`,
      atKey: true,
    });
  }
  if (kind.rules) issues.push(...kind.rules(step[kind.name], at, flow));
  return issues;
}

function listRules(steps: unknown, at: KeyPath, flow: FlowFacts): PathIssue[] {
  return list(steps).flatMap((s, i) => stepRules(s, [...at, i], flow));
}

/** The rules of a flow's `steps` (at `at`), in order: each step sees what the ones before it did. */
export function flowStepRules(steps: unknown, at: KeyPath, settings: FlowSettings): PathIssue[] {
  return listRules(steps, at, new FlowWalk(settings, 0, { submitted: false }));
}
