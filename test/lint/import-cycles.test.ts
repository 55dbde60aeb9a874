import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * DESIGN.md rule 7 and issue 33: no import circles between files of src/ and contracts/, the
 * type-only ones included (`x.ts` ↔ `x-action.ts` was one: a circle of types still ties two files
 * so that neither can be read or moved alone).
 */
const root = resolve(new URL('../../', import.meta.url).pathname);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

// Static imports and re-exports, `import type` included; a lazy `import('…')` is a real edge too.
const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Relative imports of a file, as paths of files of the tree (`.js` written, `.ts` on disk). */
export function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2];
    if (spec !== undefined) out.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
  }
  return out;
}

/** Every circle of the graph (Tarjan's strongly connected components of more than one file). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
      onStack.delete(w);
      part.push(w);
    }
    if (part.length > 1) found.push(part.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import circles', () => {
  it('finds a circle where there is one (the detector works)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c']]);
    expect(
      importsOf('/r/src/x.ts', "import type { A } from './x-action.js';\nconst m = import('../y/z.js');"),
    ).toEqual(['/r/src/x-action.ts', '/r/y/z.ts']);
  });

  it('src/ and contracts/ have none', () => {
    const files = [...sources(join(root, 'src')), ...sources(join(root, 'contracts'))];
    const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(f, 'utf8'))]));
    const found = circles(graph).map((c) => c.map((f) => relative(root, f)).join(' ↔ '));
    expect(found).toEqual([]);
  });
});

describe('no way around the lint rules from inside a file', () => {
  it('src/ and contracts/ hold no eslint directive comment', () => {
    const files = [...sources(join(root, 'src')), ...sources(join(root, 'contracts'))];
    const directive = /\/[/*]\s*eslint(-disable|-enable|\s)/;
    const offenders = files
      .filter((f) => directive.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });
});
