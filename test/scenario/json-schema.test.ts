import { describe, expect, it } from 'vitest';
import { scenarioJsonSchema, STEP_NAMES } from '../../src/scenario/index.js';

interface Node {
  description?: string;
  default?: unknown;
  properties?: Record<string, Node>;
  anyOf?: Node[];
  required?: string[];
  $ref?: string;
  items?: Node;
}

describe('scenarioJsonSchema', () => {
  const schema = scenarioJsonSchema() as unknown as Node & {
    $defs: Record<string, Node>;
    $schema: string;
    title: string;
  };

  it('describes the input format with defaults and descriptions for editors', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.title).toBe('jobstorm scenario');
    expect(schema.required).toEqual(['name', 'phases', 'flows']);
    const target = schema.properties?.target?.properties ?? {};
    // No default timeout: unset, each operation gets its own (issue 12); stalls are seen after 5 s.
    expect(target.timeout?.default).toBeUndefined();
    expect(target.stallAfter?.default).toBe('5s');
    expect(target.auth?.default).toBe('bearer');
    expect(target.timeout?.anyOf?.map((n) => (n as { type?: string }).type)).toEqual(['number', 'string']);
  });

  it('documents every field', () => {
    const undocumented: string[] = [];
    const visited: string[] = [];
    const walk = (node: Node, path: string): void => {
      for (const [key, child] of Object.entries(node.properties ?? {})) {
        visited.push(`${path}.${key}`);
        if (child.description === undefined && child.$ref === undefined) undocumented.push(`${path}.${key}`);
        walk(child, `${path}.${key}`);
      }
      for (const option of node.anyOf ?? []) walk(option, path);
      if (node.items !== undefined) walk(node.items, `${path}[]`);
    };
    walk(schema, '');
    for (const [name, def] of Object.entries(schema.$defs)) walk(def, `$defs.${name}`);
    expect(visited).toEqual(
      expect.arrayContaining([
        '.target.retry429.base',
        '.phases[].ramp.to',
        '$defs.Step.poll.interval',
        '$defs.Step.loop.steps',
      ]),
    );
    expect(undocumented).toEqual([]);
  });

  it('offers every step as a one-key object', () => {
    const step = schema.$defs.Step;
    expect(step?.anyOf?.map((o) => Object.keys(o.properties ?? {}))).toEqual(STEP_NAMES.map((n) => [n]));
    expect(step?.anyOf?.every((o) => o.required?.length === 1)).toBe(true);
  });
});
