import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/index.js';
import { parseScenario, scenarioJsonSchema, STEP_NAMES } from '../../src/scenario/index.js';
import { STEP_KINDS, stepKind, StepSchema } from '../../src/steps/index.js';

/** A scenario whose one flow is `steps` (a job first, so job steps have one to act on). */
function scenarioWith(steps: string, phase = '{rate: 1, duration: 1s}'): string {
  return `name: table\nemulator: {clock: manual}\nphases: [${phase}]\nflows:\n  - name: f\n    steps:\n      - run: {}\n${steps}`;
}

/** Where a kind's example is parsed: beside a job trace, which `traceJob` needs a phase to replay. */
const FIXTURES = join(dirname(new URL(import.meta.url).pathname), 'fixtures', 'table.yaml');
const PHASE_FOR: Record<string, string> = {
  traceJob: '{replay: {file: job-trace.jsonl, format: jobstorm}}',
};

describe('the step table (src/steps/step-list.ts)', () => {
  it.each(STEP_KINDS.map((k) => [k.name, k] as const))(
    '%s: its example parses, normalizes to its kind, and it has a runner',
    (name, kind) => {
      const parsed = StepSchema.safeParse({ [name]: kind.example });
      expect(parsed.error).toBeUndefined();
      expect(parsed.data?.kind).toBe(name);
      expect(typeof stepKind(name)?.run).toBe('function');
      const step = parseScenario(
        scenarioWith(`      - ${JSON.stringify({ [name]: kind.example })}\n`, PHASE_FOR[name]),
        FIXTURES,
      ).flows[0]?.steps[1];
      expect(step?.kind).toBe(name);
    },
  );

  it('the scenario schema offers exactly the listed kinds, in the list order', () => {
    const names = STEP_KINDS.map((k) => k.name);
    expect(STEP_NAMES).toEqual(names);
    expect(new Set(names).size).toBe(names.length);
    const step = (scenarioJsonSchema() as { $defs: { Step: { anyOf: { properties: object }[] } } }).$defs
      .Step;
    expect(step.anyOf.map((o) => Object.keys(o.properties))).toEqual(names.map((n) => [n]));
  });

  it('an unknown kind is refused with a did-you-mean, and nothing outside the list is a step', () => {
    expect(stepKind('pol')).toBeUndefined();
    expect(stepKind('toString')).toBeUndefined();
    expect(StepSchema.safeParse({ pol: {} }).success).toBe(false);
    let issues: unknown;
    try {
      parseScenario(scenarioWith('      - pol: {}\n'), 'table.yaml');
    } catch (e) {
      issues = e instanceof ConfigError ? e.issues : e;
    }
    expect(issues).toEqual([
      {
        where: 'table.yaml:8:9',
        message: 'flows[0].steps[1].pol: unknown step "pol" (did you mean "poll"?)',
      },
    ]);
  });

  it('steps/ imports no scenario file that imports steps/ (no import circle between them)', () => {
    const root = resolve(import.meta.dirname, '../../src');
    const imports = new Map<string, string[]>();
    for (const folder of ['scenario', 'steps']) {
      for (const file of readdirSync(join(root, folder)).filter((f) => f.endsWith('.ts'))) {
        const path = join(root, folder, file);
        const text = readFileSync(path, 'utf8');
        const targets = [...text.matchAll(/from '(\.[^']+)\.js'/g)].map((m) =>
          resolve(dirname(path), `${m[1] ?? ''}.ts`),
        );
        imports.set(path, targets);
      }
    }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      (imports.get(from) ?? []).some(
        (t) => t.startsWith(to) || (!seen.has(t) && (seen.add(t), reaches(t, to, seen))),
      );
    const stepsDir = join(root, 'steps');
    const circles = [...imports.keys()].filter((f) => f.startsWith(stepsDir) && reaches(f, f));
    expect(circles).toEqual([]);
  });
});
