import { describe, it } from 'vitest';
import { expectGolden, goldenName } from '../helpers/golden.js';
import { REPORT_GOLDEN } from './golden-files.js';

/**
 * Golden files: the exact text users see, compared here and never written. After an intended change,
 * `npm run golden:update` regenerates them; review the diff.
 */
describe('report goldens from the fixed records stream', () => {
  it.each(REPORT_GOLDEN.map((g) => [goldenName(g), g] as const))('%s', (_name, g) => {
    expectGolden(g);
  });
});
