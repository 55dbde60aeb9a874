import { advance } from './advance.js';
import { blast } from './blast.js';
import { cancel } from './cancel.js';
import { health } from './health.js';
import { loop } from './loop.js';
import { openai } from './openai.js';
import { poll } from './poll.js';
import { probe } from './probe.js';
import { purge } from './purge.js';
import { requests } from './requests.js';
import { retry } from './retry.js';
import { run } from './run.js';
import { runsync } from './runsync.js';
import { sleep } from './sleep.js';
import { status } from './status.js';
import { stream } from './stream.js';
import { traceJob } from './trace-job.js';

/**
 * Every step kind. Adding one is its file and a line here: the step union, the scenario schema,
 * validation, normalization and the runner table all come from this list. Its order is the order
 * in which messages and the JSON Schema name the steps.
 */
export const STEP_KINDS = [
  run,
  runsync,
  poll,
  stream,
  cancel,
  retry,
  status,
  purge,
  health,
  sleep,
  advance,
  loop,
  probe,
  blast,
  openai,
  requests,
  traceJob,
] as const;
