import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG } from '../../src/check/catalog.js';
import { headingAnchor } from '../../src/cli/docs/markdown.js';

/*
 * The README is the door to the docs: short, and every page of docs/ one link away from it. Every
 * relative link in the README and docs/ (and bench/README.md) goes to a file that exists, and
 * each #anchor to a heading of that file, as GitHub renders it.
 */
const root = new URL('../../', import.meta.url).pathname;
const README_LIMIT = 15_000;

async function markdownIn(dir: string): Promise<string[]> {
  const names = await readdir(join(root, dir));
  return names.filter((n) => n.endsWith('.md')).map((n) => `${dir}/${n}`);
}

/** The text outside fenced code blocks and inline code, where links and headings live. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

function links(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
}

/** The anchors GitHub gives a file's headings (a repeated heading gets -1, -2…). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const m of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = headingAnchor((m[1] ?? '').replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${String(n)}`);
  }
  return result;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('README and docs/', async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const pages = [...(await markdownIn('docs')), ...(await markdownIn('docs/reference'))];
  const files = ['README.md', 'bench/README.md', ...pages];

  it(`keeps the README under ${String(README_LIMIT)} bytes`, () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(README_LIMIT);
  });

  it('links every page of docs/ and docs/reference/ from the README', () => {
    const linked = new Set(links(readme).map((l) => normalize(l.split('#')[0] ?? '')));
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });

  it.each(files)('%s: every relative link resolves, every #anchor is a heading', async (file) => {
    const text = await readFile(join(root, file), 'utf8');
    const broken: string[] = [];
    for (const link of links(text)) {
      if (/^[a-z]+:/i.test(link)) continue;
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? join(root, file) : join(root, dirname(file), path);
      if (!(await exists(target))) {
        broken.push(`${link}: no file ${relative(root, target)}`);
        continue;
      }
      if (anchor === undefined || !target.endsWith('.md')) continue;
      if (!anchors(await readFile(target, 'utf8')).has(anchor)) broken.push(`${link}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it('names every family of check ids on the checks page', async () => {
    const checks = await readFile(join(root, 'docs/checks.md'), 'utf8');
    const families = new Set(CHECK_CATALOG.map((c) => c.id.split('.')[0] ?? ''));
    for (const family of families) expect(checks, family).toMatch(new RegExp(`\`${family}\\.`));
  });
});
