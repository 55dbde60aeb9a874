import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * jobstorm's own OpenAPI document of the two management calls (test/fixtures/management-openapi.json):
 * the tests' stand-in for a user's document, in the project so that a fresh clone (and a mutation
 * run's sandbox, a copy of the checkout) has it. Its facts come from the service's REST v1
 * document; none of that document's text is in it.
 */
export const MANAGEMENT_OPENAPI = fileURLToPath(
  new URL('../fixtures/management-openapi.json', import.meta.url),
);

/** One property of a fixture schema: only the keywords the tests read. */
export interface FixtureProperty {
  type?: string;
  enum?: string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

export interface FixtureSchema {
  required?: string[];
  properties: Record<string, FixtureProperty>;
}

/** A schema of the fixture's components, by name, read as plain JSON (no `$ref` inside them). */
export function fixtureSchema(name: 'EndpointCreateInput' | 'Endpoint'): FixtureSchema {
  const doc = JSON.parse(readFileSync(MANAGEMENT_OPENAPI, 'utf8')) as {
    components: { schemas: Record<string, FixtureSchema | undefined> };
  };
  const schema = doc.components.schemas[name];
  if (!schema) throw new Error(`the management fixture has no ${name} schema`);
  return schema;
}
