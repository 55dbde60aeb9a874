import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAULT_LIST } from '../../src/emulator/faults/fault-list.js';
import { FAULT_NAMES, FAULTS, FaultSet, isFaultName, parseFaults } from '../../src/emulator/faults.js';
import { resolveOptions } from '../../src/emulator/options.js';
import { FAITHFUL_POLICY } from '../../src/emulator/policy/faithful-policy.js';

const emulatorDir = fileURLToPath(new URL('../../src/emulator/', import.meta.url));
const faultsDir = join(emulatorDir, 'faults');

/** Files of the fault machinery itself: each fault's file, the list, the registry. */
const FAULT_MACHINERY = ['fault.ts', 'fault-list.ts', 'limit-rows.ts', 'status-reads.ts'];
/**
 * The control plane that switches faults on and off: its self-description gives a fault as an
 * example of the PUT body. It makes no rule decision.
 */
const CONTROL_PLANE = ['faults.ts', 'http/admin-routes.ts'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

describe('the fault list', () => {
  it('holds every file of src/emulator/faults/ and only those, each named after its fault', () => {
    const files = readdirSync(faultsDir)
      .filter((f) => f.endsWith('.ts') && !FAULT_MACHINERY.includes(f))
      .map((f) => f.slice(0, -3))
      .sort();
    expect(files).toEqual(FAULT_LIST.map((f) => f.name).sort());
    const list = readFileSync(join(faultsDir, 'fault-list.ts'), 'utf8');
    for (const name of files) expect(list).toContain(`from './${name}.js'`);
  });

  it('is the FAULTS table, in order, with one description each', () => {
    expect(Object.keys(FAULTS)).toEqual(FAULT_LIST.map((f) => f.name));
    expect(FAULT_NAMES).toEqual(FAULT_LIST.map((f) => f.name));
    expect(new Set(FAULT_NAMES).size).toBe(FAULT_NAMES.length);
    for (const f of FAULT_LIST) {
      expect(FAULTS[f.name]).toBe(f.description);
      expect(f.description.length).toBeGreaterThan(10);
      expect(f.description).not.toContain('\n');
    }
  });

  it('accepts every listed name as configuration, and each one changes the policy', () => {
    for (const name of FAULT_NAMES) {
      expect(isFaultName(name)).toBe(true);
      const parsed = resolveOptions({ faults: [name] });
      expect(parsed.faults.map(([n]) => n)).toEqual([name]);
      const set = new FaultSet();
      set.set(name, parsed.faults[0]?.[1] ?? 1);
      expect(set.policy).not.toBe(FAITHFUL_POLICY);
      set.clear(name);
      expect(set.policy).toBe(FAITHFUL_POLICY);
    }
  });

  it('rejects an unknown name, listing the known ones', () => {
    const { faults, issues } = parseFaults(['no-webhok'], 'faults');
    expect(faults).toEqual([]);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toContain('unknown fault "no-webhok"');
    expect(issues[0]?.message).toContain('no-webhook');
    expect(isFaultName('no-webhok')).toBe(false);
    expect(() => resolveOptions({ faults: ['no-webhok'] })).toThrow(/unknown fault "no-webhok"/);
  });

  it('overrides only decisions the policy has', () => {
    const decisions = Object.keys(FAITHFUL_POLICY);
    for (const f of FAULT_LIST) {
      const replaced = Object.keys(f.override(FAITHFUL_POLICY, f.defaultFraction ?? 1));
      expect(replaced.length).toBeGreaterThan(0);
      for (const key of replaced) expect(decisions).toContain(key);
    }
  });
});

describe('the faithful code', () => {
  it('names no fault: every fault is an override in src/emulator/faults/', () => {
    const words = FAULT_NAMES.flatMap((name) => [
      new RegExp(`${name}(?![a-z0-9-])`),
      ...(name.includes('-') ? [new RegExp(`\\b${camel(name)}\\b`)] : []),
    ]);
    const found: string[] = [];
    for (const path of tsFiles(emulatorDir)) {
      const rel = relative(emulatorDir, path).split('\\').join('/');
      if (rel.startsWith('faults/') || CONTROL_PLANE.includes(rel)) continue;
      const text = readFileSync(path, 'utf8');
      for (const word of words) if (word.test(text)) found.push(`${rel}: ${word.source}`);
    }
    expect(found).toEqual([]);
  });
});
