export * from './management/index.js';
export * from './openapi.js';
export * from './openapi-lint.js';
export * from './queue/index.js';
