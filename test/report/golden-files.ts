import { fileURLToPath } from 'node:url';
import { getReporter } from '../../src/report/reporter-registry.js';
import { renderTerminalSummary } from '../../src/report/report-writer.js';
import type { GoldenFile } from '../helpers/golden.js';
import { fixtureSummary, RECORDS_FILE } from './fixtures/fixture-summary.js';
import { fixtureNdjson } from './fixtures/write-fixture.js';

const at = (name: string): string => fileURLToPath(new URL(`./golden/${name}`, import.meta.url));

/**
 * The report's golden files, from the fixed records stream; the records file comes first, since the
 * others are rendered from it as committed.
 */
export const REPORT_GOLDEN: readonly GoldenFile[] = [
  { file: RECORDS_FILE, render: fixtureNdjson },
  { file: at('terminal.txt'), render: () => renderTerminalSummary(fixtureSummary()) },
  { file: at('summary.md'), render: () => getReporter('markdown').render(fixtureSummary()) },
  { file: at('junit.xml'), render: () => getReporter('junit').render(fixtureSummary()) },
];
