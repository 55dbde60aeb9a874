import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG } from '../../src/check/catalog.js';
import { checkCatalogMarkdown } from '../../src/check/catalog-table.js';

const page = new URL('../../docs/reference/checks.md', import.meta.url);

describe('check table (docs/reference/checks.md, linked from the README)', () => {
  it('is exactly the table generated from the catalog (regenerate with npm run docs)', async () => {
    const text = await readFile(page, 'utf8');
    const start = '<!-- check-catalog:start -->';
    const end = '<!-- check-catalog:end -->';
    const i = text.indexOf(start);
    const j = text.indexOf(end);
    expect(i).toBeGreaterThan(0);
    expect(text.slice(i, j + end.length)).toBe(`${start}\n${checkCatalogMarkdown()}\n${end}`);
  });

  it('lists every check id once', () => {
    const ids = CHECK_CATALOG.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
