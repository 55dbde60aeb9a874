import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** A committed file of exact output, and how to render what it must hold. */
export interface GoldenFile {
  /** Absolute path of the committed file. */
  file: string;
  render: () => string;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The golden file's path from the repository's root, as messages name it. */
export const goldenName = (g: GoldenFile): string => relative(ROOT, g.file).split('\\').join('/');

/**
 * Compares what the code renders with the committed golden file; it never writes one (only
 * `npm run golden:update` does, test/helpers/golden-update.ts). On a difference vitest prints the
 * diff, and the message says how to accept an intended change.
 */
export function expectGolden(g: GoldenFile): void {
  const name = goldenName(g);
  const hint = 'if the change is intended, run `npm run golden:update` and review the diff';
  if (!existsSync(g.file)) throw new Error(`golden file ${name} is missing: ${hint}`);
  expect(g.render(), `${name} differs from what the code renders: ${hint}`).toBe(
    readFileSync(g.file, 'utf8'),
  );
}
