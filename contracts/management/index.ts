export * from './operations.js';
export * from './schemas.js';
