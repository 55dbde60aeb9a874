import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG, type CheckId } from '../../src/check/catalog.js';
import { LATE_CHECK_IDS } from '../../src/check/check.js';
import { defaultChecks } from '../../src/check/checks/registry.js';
import { routeCheck } from '../../src/check/checks/route-check.js';
import { FAULT_NAMES } from '../../src/emulator/faults.js';

/*
 * The catalog is the table of check ids; the check families are what judges them. Each family
 * declares the ids it owns: together they must be the catalog, each id owned once, so that no id
 * is listed (and reported as "not exercised") that nothing can judge. And each id's proof names a
 * fault the emulator has (the faults test then shows it firing).
 */

/** Every family a checker runs: the route watch first, always, then the registered ones. */
const families = [routeCheck, ...defaultChecks(new Map())];

describe('the check catalog against the check families', () => {
  it('is exactly the union of the ids the families declare, each owned by one family', () => {
    const owners = new Map<CheckId, string[]>();
    for (const f of families) for (const id of f.ids) owners.set(id, [...(owners.get(id) ?? []), f.name]);
    const catalog = CHECK_CATALOG.map((c) => c.id);
    expect([...owners.keys()].sort()).toEqual([...catalog].sort());
    for (const [id, names] of owners) expect(names, id).toHaveLength(1);
  });

  it('gives each family a name of its own', () => {
    const names = families.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('settles late only ids of the catalog', () => {
    const catalog = new Set<string>(CHECK_CATALOG.map((c) => c.id));
    for (const id of LATE_CHECK_IDS) expect(catalog.has(id), id).toBe(true);
  });

  it('types check ids: an id the catalog lacks does not compile', () => {
    // @ts-expect-error: not a catalog id (tsc over the tests fails if this ever compiles)
    const unknown: CheckId = 'schema.no-such-operation';
    const known: CheckId = 'schema.status';
    expect([unknown, known]).toHaveLength(2);
  });

  it('proves every id with a fault the emulator knows', () => {
    for (const c of CHECK_CATALOG) expect(FAULT_NAMES, c.id).toContain(c.provenBy);
  });
});
