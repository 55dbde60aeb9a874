export { compareRuns, COMPARE_DEFAULTS, type CompareOptions } from './comparison.js';
export { parseGates, type Gate, type GateSource } from './gate.js';
export { writeComparison, COMPARE_FILES } from './compare-writer.js';
export { readRun, summaryPath } from './run-input.js';
export { renderCompareMarkdown } from './compare-markdown.js';
export { renderCompareText } from './compare-text.js';
export { renderCompareHtml } from './compare-html.js';
export { renderCompareJunit } from './compare-junit.js';
export { COMPARE_VERSION, type Comparison } from './compare-data.js';
