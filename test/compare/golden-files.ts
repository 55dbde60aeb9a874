import { fileURLToPath } from 'node:url';
import { renderCompareJunit } from '../../src/compare/compare-junit.js';
import { renderCompareMarkdown } from '../../src/compare/compare-markdown.js';
import type { GoldenFile } from '../helpers/golden.js';
import { fixtureComparison } from './fixtures/compare-fixture.js';

const at = (name: string): string => fileURLToPath(new URL(`./golden/${name}`, import.meta.url));

/** The comparison's golden files, from two saved summaries. */
export const COMPARE_GOLDEN: readonly GoldenFile[] = [
  { file: at('compare.json'), render: () => `${JSON.stringify(fixtureComparison(), null, 2)}\n` },
  { file: at('compare.md'), render: () => renderCompareMarkdown(fixtureComparison()) },
  { file: at('compare-junit.xml'), render: () => renderCompareJunit(fixtureComparison()) },
];
