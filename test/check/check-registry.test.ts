import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG } from '../../src/check/catalog.js';
import { defaultChecks } from '../../src/check/checks/registry.js';
import { routeCheck } from '../../src/check/checks/route-check.js';

/*
 * The registry's families, made inside the tests (issue 39: a family made at a test file's load
 * counts as covered by no test, so a mutation run never reruns the file for it).
 */

describe('the registered check families', () => {
  it('include management.openapi only when the run has an OpenAPI document', () => {
    const without = defaultChecks().map((c) => c.name);
    const withDoc = defaultChecks(new Map()).map((c) => c.name);
    expect(without).not.toContain('management');
    expect(withDoc).toEqual([...without, 'management']);
  });

  it('declare, with the route watch, every id of the catalog', () => {
    const ids = [routeCheck, ...defaultChecks(new Map())].flatMap((c) => c.ids);
    expect([...ids].sort()).toEqual(CHECK_CATALOG.map((c) => c.id).sort());
  });
});
