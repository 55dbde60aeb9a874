import { readFileSync, writeFileSync } from 'node:fs';
import { COMPARE_GOLDEN } from '../compare/golden-files.js';
import { REPORT_GOLDEN } from '../report/golden-files.js';
import { goldenName, type GoldenFile } from './golden.js';

/*
 * `npm run golden:update`: regenerates every golden file, in table order, and says which changed.
 * The tests only compare; review the diff (git diff test/) before committing.
 */
const ALL: readonly GoldenFile[] = [...REPORT_GOLDEN, ...COMPARE_GOLDEN];

function current(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

for (const g of ALL) {
  const text = g.render();
  const changed = current(g.file) !== text;
  if (changed) writeFileSync(g.file, text);
  console.log(`${changed ? 'updated  ' : 'unchanged'} ${goldenName(g)}`);
}
