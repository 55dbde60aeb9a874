export * from './counts.js';
export * from './histogram.js';
export * from './metrics-data.js';
export * from './outcome.js';
export * from './run-metrics.js';
export * from './violation-tally.js';
export * from './sparse-histogram.js';
