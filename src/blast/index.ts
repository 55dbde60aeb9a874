export * from './blast.js';
export * from './blast-options.js';
