import { z } from 'zod';
import { ScenarioSchema } from './scenario-schema.js';

/**
 * The JSON Schema of the scenario file format as users write it (durations as strings, defaults
 * shown), for `jobstorm contract export --json-schema` and editor completion via `$schema`.
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ScenarioSchema, {
    io: 'input',
    target: 'draft-2020-12',
    // Zod leaves out the default of a field whose input is transformed (every duration); the
    // default is in milliseconds, which is valid input, so editors may show it.
    override: (ctx) => {
      const def = ctx.zodSchema._zod.def;
      if (def.type === 'default' && ctx.jsonSchema.default === undefined)
        ctx.jsonSchema.default = def.defaultValue;
    },
  });
  return { ...schema, title: 'jobstorm scenario' };
}
