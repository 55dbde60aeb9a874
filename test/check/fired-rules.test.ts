import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { CHECK_CATALOG, checkInfo, isCheckId, type CheckId } from '../../src/check/catalog.js';
import { checkCatalogMarkdown } from '../../src/check/catalog-table.js';
import { firstTime } from '../../src/check/fired-rules.js';
import { newJobState } from '../../src/check/job-state.js';

/* Rules judged once per job, a bit each, and the catalog's lookups. */

describe('firstTime', () => {
  it('is true once per job and rule, each rule on its own bit', () => {
    const a = newJobState('a');
    const b = newJobState('b');
    expect(firstTime(a, 'lifecycle.ttl-ignored')).toBe(true);
    expect(firstTime(a, 'lifecycle.ttl-ignored')).toBe(false);
    expect(firstTime(a, 'webhook.judged')).toBe(true);
    expect(firstTime(a, 'webhook.judged')).toBe(false);
    expect(firstTime(b, 'webhook.judged')).toBe(true);
    expect(firstTime(b, 'lifecycle.ttl-ignored')).toBe(true);
    expect(a.fired).toBe(b.fired);
    expect(a.fired.toString(2).replace(/0/g, '')).toBe('11');
  });

  it('gives out 30 bits, and refuses a 31st rule', async () => {
    // The bits are given out once per process, and the suite's workers keep their modules from one
    // file to the next (vitest.config.ts): a fresh copy of the module has all 30 to give.
    vi.resetModules();
    const { firstTime } = await import('../../src/check/fired-rules.js');
    // This copy ends with every bit taken: the next file's imports must not find it.
    onTestFinished(() => {
      vi.resetModules();
    });
    const job = newJobState('j');
    const ids: (CheckId | 'webhook.judged')[] = [
      'webhook.judged',
      'lifecycle.ttl-ignored',
      ...CHECK_CATALOG.map((c) => c.id).filter((id) => id !== 'lifecycle.ttl-ignored'),
    ];
    let taken = 0;
    let refused: unknown;
    for (const id of ids) {
      try {
        expect(firstTime(job, id)).toBe(true);
        taken++;
      } catch (err) {
        refused = err;
        break;
      }
    }
    expect(taken).toBe(30);
    expect(job.fired).toBe((1 << 30) - 1);
    expect(String(refused)).toMatch(/more than 30 once-per-job rule ids/);
  });
});

describe('the catalog', () => {
  it('knows its ids and nothing else', () => {
    expect(isCheckId('limits.wait')).toBe(true);
    expect(isCheckId('limits.nothing')).toBe(false);
    expect(checkInfo('limits.wait').severity).toBe('error');
    expect(() => checkInfo('limits.nothing')).toThrow(/unknown check id limits\.nothing/);
  });

  it('makes the README table a row per id', () => {
    const lines = checkCatalogMarkdown().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      '| check id | severity | fires when | proven by emulator fault |',
      '| --- | --- | --- | --- |',
    ]);
    expect(lines).toHaveLength(CHECK_CATALOG.length + 2);
    const wait = checkInfo('limits.wait');
    expect(lines).toContain(`| \`limits.wait\` | error | ${wait.description} | \`${wait.provenBy}\` |`);
  });
});
