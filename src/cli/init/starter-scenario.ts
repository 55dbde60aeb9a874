/**
 * The starter scenarios `jobstorm init` writes. Each runs as it is against the embedded emulator,
 * and its comments say what each part is for and how to point it at a real endpoint next.
 */

export type StarterFormat = 'yaml' | 'ts';

/** The two commands a new user runs next; shared by the file's comments and init's output. */
export function nextCommands(file: string): { emulator: string; target: string } {
  return {
    emulator: `npx jobstorm run ${file}`,
    target: `npx jobstorm run ${file} --target https://api.example.com/v2/<endpointId>`,
  };
}

function header(file: string, prefix: string): string {
  const next = nextCommands(file);
  return [
    `A starter jobstorm scenario, written by \`jobstorm init\`. It runs as it is:`,
    ``,
    `  ${next.emulator}`,
    ``,
    `Without --target, the run goes to jobstorm's embedded emulator (no account, no network).`,
    `Then point it at your endpoint; the key comes from the environment, never the command line:`,
    ``,
    `  export JOBSTORM_API_KEY=<your key>`,
    `  ${next.target}`,
    ``,
    `--duration 10s fits the phases into 10 s for a quick try. Reports land in reports/<run-id>/.`,
  ]
    .map((line) => `${prefix}${line}`.trimEnd())
    .join('\n');
}

function yamlStarter(file: string): string {
  return `${header(file, '# ')}
name: starter
description: Submit jobs and poll them to the end, with a health check on the side.
target:
  timeout: 30s                 # per request
phases:
  # Open model: 2 new flows start every second for 30 s, whatever the target's latency.
  # Other shapes: { duration: 1m, ramp: { from: 1, to: 20 } }, { count: 100 }, { duration: 1m, vus: 5 }
  - { name: steady, duration: 30s, rate: 2 }
flows:
  - name: submit-and-poll
    weight: 3                  # picked 3 times as often as the flow below
    steps:
      # input is what your handler receives. The emulator's handler reads sleep_ms (how long the
      # job runs); put your own handler's fields here.
      - run: { input: { sleep_ms: 200 } }
      - poll: { until: final, interval: 500ms, timeout: 2m }
  - name: health
    weight: 1
    steps:
      - health: {}
thresholds:
  # Exit 1 when one fails, so CI can gate on them.
  - "violations == 0"          # every response and every job's life obeyed the API's contract
  - "p99(run) < 1s"
`;
}

function tsStarter(file: string): string {
  return `${header(file, '// ')}
//
// defineScenario only types the object, so your editor checks it as you write. The import needs
// jobstorm installed in this project: npm i -D jobstorm
import { defineScenario } from 'jobstorm';

export default defineScenario({
  name: 'starter',
  description: 'Submit jobs and poll them to the end, with a health check on the side.',
  target: {
    timeout: '30s', // per request
  },
  phases: [
    // Open model: 2 new flows start every second for 30 s, whatever the target's latency.
    // Other shapes: { duration: '1m', ramp: { from: 1, to: 20 } }, { count: 100 }, { duration: '1m', vus: 5 }
    { name: 'steady', duration: '30s', rate: 2 },
  ],
  flows: [
    {
      name: 'submit-and-poll',
      weight: 3, // picked 3 times as often as the flow below
      steps: [
        // input is what your handler receives. The emulator's handler reads sleep_ms (how long
        // the job runs); put your own handler's fields here.
        { run: { input: { sleep_ms: 200 } } },
        { poll: { until: 'final', interval: '500ms', timeout: '2m' } },
      ],
    },
    { name: 'health', weight: 1, steps: [{ health: {} }] },
  ],
  thresholds: [
    // Exit 1 when one fails, so CI can gate on them.
    'violations == 0', // every response and every job's life obeyed the API's contract
    'p99(run) < 1s',
  ],
});
`;
}

/** The starter file's text; `file` is the path as the user will type it in the next command. */
export function starterScenario(format: StarterFormat, file: string): string {
  return format === 'ts' ? tsStarter(file) : yamlStarter(file);
}
