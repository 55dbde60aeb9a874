import type { z } from 'zod';
import { STEP_NAMES, stepKind } from '../steps/index.js';
import { describeValue } from './value-description.js';
import { decodeUnknownKeys, scenarioErrorMap, unknownKeyMessage } from './issue-message.js';
import type { KeyPath, PathIssue } from './path-format.js';
import { isRecord } from './raw-value.js';
import { didYouMean } from './suggestion.js';

/*
 * Zod issues turned into one located message per problem. Two things zod does not do for us:
 * an unknown-keys issue becomes one issue per key (each on its own line), and a union that failed
 * reports the branch whose type matched the input (`sleep: {min: x}` talks about `min`, not about
 * "no branch matched"). Steps are validated by `stepIssues`, which picks the step's schema by its
 * key instead of trying them all.
 */

type Issue = z.core.$ZodIssue;

function isTypeMismatch(issues: readonly Issue[]): boolean {
  return issues.some(
    (i) =>
      i.path.length === 0 &&
      (i.code === 'invalid_type' ||
        i.code === 'invalid_value' ||
        (i.code === 'invalid_union' && i.errors.every(isTypeMismatch))),
  );
}

function flatten(issue: Issue, base: KeyPath): PathIssue[] {
  const path = [...base, ...(issue.path as (string | number)[])];
  if (issue.code === 'unrecognized_keys') {
    const decoded = decodeUnknownKeys(issue.message);
    return issue.keys.map((key) => ({
      path: [...path, key],
      message: unknownKeyMessage(key, decoded?.known ?? []),
      atKey: true,
    }));
  }
  if (issue.code === 'invalid_union') {
    const matching = issue.errors.filter((branch) => !isTypeMismatch(branch));
    const only = matching[0];
    if (matching.length === 1 && only !== undefined) return only.flatMap((i) => flatten(i, path));
  }
  return [{ path, message: issue.message }];
}

/** Every problem zod finds in `data`, with paths prefixed by `base`. */
export function schemaIssues(schema: z.ZodType, data: unknown, base: KeyPath = []): PathIssue[] {
  const result = schema.safeParse(data, { reportInput: true, error: scenarioErrorMap });
  return result.success ? [] : result.error.issues.flatMap((i) => flatten(i, base));
}

/** True for paths at or inside a step of a list at `listPath` (zod's view of them is replaced by ours). */
function isStepPath(path: KeyPath, listPath: KeyPath): boolean {
  return (
    path.length > listPath.length &&
    listPath.every((s, i) => path[i] === s) &&
    typeof path[listPath.length] === 'number'
  );
}

const STEP_LIST = STEP_NAMES.join(', ');

/** Validates one step: exactly one key, a known step name, then that step's own schema. */
export function stepIssues(step: unknown, path: KeyPath): PathIssue[] {
  if (typeof step !== 'object' || step === null || Array.isArray(step)) {
    if (typeof step === 'string' && stepKind(step) !== undefined)
      return [{ path, message: `a step is an object with one key: write "${step}: {}"` }];
    return [
      { path, message: `expected a step (an object with one key: ${STEP_LIST}), got ${describeValue(step)}` },
    ];
  }
  const keys = Object.keys(step);
  const [name] = keys;
  if (name === undefined) return [{ path, message: `an empty step: name one of ${STEP_LIST}` }];
  if (keys.length > 1) {
    return [
      {
        path,
        message: `a step has exactly one key, found ${keys.length}: ${keys.join(', ')} (are its options indented under it?)`,
      },
    ];
  }
  const at = [...path, name];
  const kind = stepKind(name);
  if (kind === undefined) {
    const hint = didYouMean(name, STEP_NAMES);
    return [
      {
        path: at,
        message: `unknown step "${name}"${hint === '' ? `; steps are ${STEP_LIST}` : hint}`,
        atKey: true,
      },
    ];
  }
  const payload = (step as Record<string, unknown>)[name];
  const issues = schemaIssues(kind.payload, payload, at);
  if (kind.nests === undefined) return issues;
  const inner = [...at, kind.nests];
  const nested = isRecord(payload) ? payload[kind.nests] : undefined;
  return [
    ...issues.filter((i) => !isStepPath(i.path, inner)),
    ...(Array.isArray(nested) ? nested.flatMap((s: unknown, i) => stepIssues(s, [...inner, i])) : []),
  ];
}
