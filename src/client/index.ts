export * from './backoff.js';
export * from './client-options.js';
export * from './job-client.js';
export * from './sized-submission.js';
