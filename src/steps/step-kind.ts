import type { z } from 'zod';
import type { FeedRows } from '../scenario/data-feed.js';
import type { KeyPath, PathIssue } from '../scenario/path-format.js';
import type { StepRunner } from './iteration-state.js';

/*
 * A step kind is one file: the schema of what is written under its key (transforming to its
 * normalized step), the rules that involve the rest of the flow, and the runner. The step union,
 * validation, normalization and the runner table are derived from the list in step-list.ts.
 */

/** What every normalized step has: the kind that names it. */
export interface StepBase {
  readonly kind: string;
}

/** The schema of one step of the list, handed to kinds that nest steps (importing it would be a circle). */
export type NestedStepSchema = z.ZodType<StepBase>;

/** What the cross-field rules know of the flow around a step. */
export interface FlowFacts {
  readonly manualClock: boolean;
  readonly hasData: boolean;
  /** A phase replays a trace, so `{{trace.*}}` has a row to read. */
  readonly hasTrace: boolean;
  /** A phase replays a job trace (format jobstorm), whose jobs a `traceJob` step submits. */
  readonly hasJobTrace: boolean;
  /** Columns of the loaded data feed, when there is one. */
  readonly columns: ReadonlySet<string> | undefined;
  /** The loaded data feed's rows, whose values `{{length:row.x}}` must find lengths in. */
  readonly feed?: FeedRows | undefined;
  /** How many loops the step is inside. */
  readonly depth: number;
  /** A run or runsync came earlier in the flow, so job steps have a job to act on. */
  hasJob: boolean;
  /** The rules of a list of steps one loop deeper, at `at`. */
  nested(steps: unknown, at: KeyPath): PathIssue[];
}

/** Rules over the raw payload (any type: the schema reports wrong types), at the step's key `at`. */
export type StepRules = (payload: unknown, at: KeyPath, flow: FlowFacts) => PathIssue[];

export interface StepKind<
  Name extends string = string,
  Payload extends z.ZodType<{ readonly kind: Name }> = z.ZodType<{ readonly kind: Name }>,
> {
  readonly name: Name;
  /** A minimal valid payload: the table's test parses it, so every listed kind is proven to load. */
  readonly example: unknown;
  /** The payload schema, its output the normalized step; `nested()` is the schema of any step. */
  payload(nested: () => NestedStepSchema): Payload;
  /** The step acts on the flow's job: a run or runsync must come before it. */
  readonly needsJob?: boolean;
  readonly rules?: StepRules;
  /** The payload key that holds nested steps (validated one by one, like a flow's steps). */
  readonly nests?: string;
  /** The step's template (its input or body), compiled once per flow before the run. */
  readonly template?: (step: z.output<Payload>) => Readonly<Record<string, unknown>> | undefined;
  /** The normalized steps it nests, whose templates are compiled too. */
  readonly children?: (step: z.output<Payload>) => readonly StepBase[];
  readonly run: StepRunner<z.output<Payload>>;
}

/** Checks a kind's parts against each other (the runner takes what the schema gives). */
export function defineStep<const Name extends string, Payload extends z.ZodType<{ readonly kind: Name }>>(
  kind: StepKind<Name, Payload>,
): StepKind<Name, Payload> {
  return kind;
}
