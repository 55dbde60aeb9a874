import { z } from 'zod';
import { ScenarioSchema } from './scenario-schema.js';

/**
 * The JSON Schema of the scenario file format as users write it (durations and sizes as strings
 * with their unit, defaults shown as written), for `jobstorm contract export --json-schema` and
 * editor completion via `$schema`. Duration and size defaults are `prefault`s written with their
 * unit, so zod shows them as input; a `default` there would be milliseconds, which is no valid input.
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ScenarioSchema, { io: 'input', target: 'draft-2020-12' });
  return { ...schema, title: 'jobstorm scenario' };
}
