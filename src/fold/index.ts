export * from './job-events.js';
export * from './job-fold.js';
export * from './job-event-log.js';
export * from './queue-spans.js';
