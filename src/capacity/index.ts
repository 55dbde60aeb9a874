/**
 * Capacity search: how many jobs per second an endpoint sustains within an SLO, and with how many
 * workers (`jobstorm capacity`).
 */
export { findCapacity } from './capacity-search.js';
export * from './capacity-options.js';
export * from './capacity-report.js';
export { writeCapacityReports, CAPACITY_FILES, type WriteCapacityOptions } from './capacity-writer.js';
export { renderCapacityMarkdown } from './capacity-markdown.js';
export { renderCapacityHtml } from './capacity-html.js';
export { renderCapacityText, stepLine } from './capacity-text.js';
export { capacityCharts, type CapacityChart, type CapacitySeries } from './capacity-charts.js';
export { RateSearch, roundRate, type NextRate, type SearchBounds, type SearchStage } from './rate-search.js';
export { QueueWatch, queueTrend, slopePerSec, type QueueTrend } from './queue-trend.js';
export { littleCheck, type LittleCheck } from './little-law.js';
export { timedReadingOf, type TimedReading } from './timed-reading.js';
