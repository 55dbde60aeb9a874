export * from './bucket-histogram.js';
export * from './live-aggregate.js';
export * from './live-exports.js';
export * from './metric-catalog.js';
export * from './metric-sender.js';
export * from './metric-snapshot.js';
export * from './otlp-sender.js';
export * from './prometheus-sender.js';
