import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG, isCheckId, type CheckId } from '../../src/check/catalog.js';
import { defineFault } from '../../src/emulator/faults/fault.js';
import { FAULT_LIST } from '../../src/emulator/faults/fault-list.js';

/*
 * Each emulator fault declares every check id it may make fire (`mayTrip`). The emulator may not
 * import src/check, so there they are plain strings; here, where both are in reach, they are typed
 * against CheckId: a set naming an id the catalog lacks fails `tsc` over the tests, and a fault
 * declared without a set does not compile at all.
 */
const SETS: readonly (readonly CheckId[])[] = FAULT_LIST.map((f) => f.mayTrip);

describe("the faults' sets of check ids", () => {
  it('name only catalog ids, each once', () => {
    expect(SETS).toHaveLength(FAULT_LIST.length);
    for (const f of FAULT_LIST) {
      for (const id of f.mayTrip) expect(isCheckId(id), `${f.name}: ${id}`).toBe(true);
      expect(new Set(f.mayTrip).size, f.name).toBe(f.mayTrip.length);
    }
  });

  it('hold first the ids the catalog says the fault proves', () => {
    for (const f of FAULT_LIST) {
      const proved = CHECK_CATALOG.filter((c) => c.provenBy === f.name).map((c) => c.id);
      expect([...f.mayTrip.slice(0, proved.length)].sort(), f.name).toEqual(proved.sort());
    }
  });

  it('are required and typed: a fault without one, or with an id the catalog lacks, does not compile', () => {
    // @ts-expect-error: no set of check ids (tsc over the tests fails if this ever compiles)
    const unset = defineFault('test-unset', 'a test-only fault', () => ({}));
    const typo = defineFault('test-typo', 'a test-only fault', ['lifecycle.lsot'], () => ({}));
    // @ts-expect-error: not a catalog id
    const typed: readonly CheckId[] = typo.mayTrip;
    expect([unset.name, typed]).toHaveLength(2);
  });
});
