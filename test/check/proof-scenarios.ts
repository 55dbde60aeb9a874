/*
 * Small scenarios that exercise each family of rules, for proving the checks against emulator
 * faults. Each stays a few seconds long; the manual-clock ones move hours of emulator time.
 */

export const ALL_OPS = `
name: all-ops
emulator: { workersMin: 1, workersMax: 2, coldStart: 0 }
phases: [{ count: 3, rate: 10 }]
flows:
  - name: everything
    steps:
      - run: { input: { sleep_ms: 50, stream: 2 } }
      - stream: { interval: 20ms, timeout: 2s }
      - status: {}
      - runsync: { input: { sleep_ms: 1500 }, wait: 1s }
      - cancel: {}
      - purge: {}
      - health: {}
      - probe: management
      - run: { input: { fail: "boom" } }
      - poll: { until: final, interval: 50ms, timeout: 3s }
      - retry: {}
`;

export const WATCH = `
name: watch
emulator: { workersMin: 2, workersMax: 2, coldStart: 0 }
phases: [{ count: 4, rate: 20 }]
flows:
  - name: watch
    steps:
      - run: { input: { sleep_ms: 300 } }
      - poll: { until: final, interval: 40ms, timeout: 5s }
      - status: {}
      - health: {}
      - status: {}
      - health: {}
      - status: {}
      - health: {}
`;

/**
 * One job to its end, then four /health reads in a row from one iteration: no read overlaps
 * another and no job ends between them, so a counter that goes down between two reads shows. (In
 * WATCH, four iterations read /health side by side while jobs end: under a loaded CI machine their
 * reads overlapped, and overlapping reads are not compared.)
 */
export const HEALTH_READS = `
name: health-reads
emulator: { workersMin: 1, workersMax: 1, coldStart: 0 }
phases: [{ count: 1 }]
flows:
  - name: reads
    steps:
      - run: { input: { sleep_ms: 50 } }
      - poll: { until: final, interval: 20ms, timeout: 5s }
      - health: {}
      - health: {}
      - health: {}
      - health: {}
`;

export const CLOCKED = `
name: clocked
emulator: { clock: manual, workersMin: 4, workersMax: 4, coldStart: 0 }
phases: [{ count: 1 }]
flows:
  - name: lifecycle
    steps:
      - run: { input: { sleep_ms: 100 } }
      - advance: 1s
      - status: {}
      - advance: 6s
      - status: {}
      - run: { input: { sleep_ms: 600000 }, policy: { ttl: 10s } }
      - advance: 1s
      - status: {}
      - advance: 20s
      - status: {}
      - run: { input: { sleep_ms: 20000 }, policy: { executionTimeout: 5s } }
      - advance: 1s
      - status: {}
      - advance: 25s
      - status: {}
      - run: { input: { sleep_ms: 100 } }
      - advance: 1s
      - status: {}
      - advance: 40m
      - status: {}
`;

export const RUNSYNC = `
name: runsync
emulator: { workersMin: 1, workersMax: 1, coldStart: 0 }
phases: [{ count: 1 }]
flows:
  - name: sync
    steps:
      - runsync: { input: { sleep_ms: 10 }, wait: 3s }
`;

export const RETRY_PURGE = `
name: retry-purge
emulator: { workersMin: 1, workersMax: 1, coldStart: 0 }
phases: [{ count: 1 }]
flows:
  - name: retry-then-purge
    steps:
      - run: { input: { sleep_ms: 10 } }
      - poll: { until: final, interval: 30ms, timeout: 5s }
      - retry: {}
      - run: { input: { sleep_ms: 1500 } }
      - poll: { until: IN_PROGRESS, interval: 30ms, timeout: 5s }
      - purge: {}
      - status: {}
`;

export const PROBES = `
name: probes
emulator: { workersMin: 1, workersMax: 2, coldStart: 0 }
phases: [{ count: 1 }]
flows:
  - name: edges
    steps:
      - probe: limits
      - probe: auth
      - probe: requests
`;

export const RATE = `
name: rate
emulator: { workersMin: 1, workersMax: 1, coldStart: 0 }
phases: [{ duration: 2s, rate: 700 }]
flows:
  - name: submit
    steps:
      - run: { input: { sleep_ms: 0 } }
`;

export const WEBHOOKS = `
name: webhooks
emulator: { clock: manual, workersMin: 1, workersMax: 1, coldStart: 0 }
phases: [{ count: 1 }]
flows:
  - name: hook
    steps:
      - run: { input: { sleep_ms: 100 }, webhook: true }
      - advance: 1s
      - poll: { until: final, interval: 20ms, timeout: 3s }
      - loop: { times: 30, steps: [{ sleep: 30ms }, { advance: 1s }] }
      - advance: 40s
      - sleep: 200ms
      - health: {}
`;

export const STREAMS = `
name: streams
emulator: { workersMin: 2, workersMax: 2, coldStart: 0 }
phases: [{ count: 2, rate: 5 }]
flows:
  - name: read
    steps:
      - run: { input: { sleep_ms: 200, stream: 3 } }
      - stream: { interval: 30ms, timeout: 5s }
      - stream: { interval: 30ms, timeout: 1s }
`;

/** Every /openai/* route, streamed and not, a refused request, and /requests (issue 18). */
export const OPENAI = `
name: openai
emulator: { workersMin: 2, workersMax: 2, coldStart: 0, profile: { duration: { kind: fixed, ms: 100 } } }
phases: [{ count: 2, rate: 5 }]
flows:
  - name: chat
    steps:
      - openai: { path: chat/completions, stream: true, body: { model: m, messages: [{ role: user, content: hi }], max_tokens: 5 } }
      - openai: { path: chat/completions, body: { model: m, messages: [{ role: user, content: hi }], max_tokens: 3 } }
      - openai: { path: completions, stream: true, body: { model: m, prompt: once, max_tokens: 4 } }
      - openai: { path: completions, body: { model: m, prompt: once } }
      - openai: { path: models }
      - openai: { path: chat/completions, body: { model: m } }
      - requests: {}
`;

/** 300 slow completions at once: under the table's 400 concurrent, over a halved table's 200. */
export const OPENAI_RATE = `
name: openai-rate
target: { connections: 400 }
emulator: { workersMin: 100, workersMax: 100, coldStart: 0, profile: { duration: { kind: fixed, ms: 1500 } } }
phases: [{ count: 300, rate: 600 }]
flows:
  - name: chat
    steps:
      - openai: { path: chat/completions, body: { model: m, messages: [{ role: user, content: hi }], max_tokens: 2 } }
`;

/** 14 GET /requests in about a second: the table allows 10 per 10 s. */
export const REQUESTS_RATE = `
name: requests-rate
emulator: { workersMin: 1, workersMax: 1, coldStart: 0 }
phases: [{ count: 14, rate: 14 }]
flows:
  - name: look
    steps:
      - requests: {}
`;
