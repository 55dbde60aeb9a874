import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG } from '../../src/check/catalog.js';
import { checkCatalogMarkdown } from '../../src/check/catalog-table.js';

const readme = new URL('../../README.md', import.meta.url);

describe('README check table', () => {
  it('is exactly the table generated from the catalog (regenerate with UPDATE_README=1)', async () => {
    const text = await readFile(readme, 'utf8');
    const start = '<!-- check-catalog:start -->';
    const end = '<!-- check-catalog:end -->';
    const i = text.indexOf(start);
    const j = text.indexOf(end);
    expect(i).toBeGreaterThan(0);
    const wanted = `${start}\n${checkCatalogMarkdown()}\n${end}`;
    if (process.env.UPDATE_README === '1') {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(readme, text.slice(0, i) + wanted + text.slice(j + end.length));
      return;
    }
    expect(text.slice(i, j + end.length)).toBe(wanted);
  });

  it('lists every check id once', () => {
    const ids = CHECK_CATALOG.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
