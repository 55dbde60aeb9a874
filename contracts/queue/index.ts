export * from './limits.js';
export * from './operations.js';
export * from './rate-limits.js';
export * from './schemas.js';
export * from './states.js';
