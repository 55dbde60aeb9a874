// The fold lives in src/fold/, where the checks can reach it too; kept here for existing importers.
export { DEFAULT_MAX_TRACKED_JOBS, JobFold, type JobFoldOptions } from '../fold/job-fold.js';
