/** Kept in step with package.json by a test. */
export const JOBSTORM_VERSION = '0.1.0';
