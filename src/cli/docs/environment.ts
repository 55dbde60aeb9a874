/** An environment variable jobstorm reads, and the flag it stands in for (if any). */
export interface EnvironmentVariable {
  name: string;
  /** Flags (without `--`) whose value it gives when the flag is left out. */
  flags: readonly string[];
  description: string;
}

/**
 * Every variable the CLI reads; the reference test fails when src/cli reads one that is not here,
 * so this list cannot fall behind the code.
 */
export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  {
    name: 'JOBSTORM_TARGET',
    flags: ['target'],
    description: 'The endpoint base URL when `--target` is left out; without either, the embedded emulator.',
  },
  {
    name: 'JOBSTORM_API_KEY',
    flags: ['api-key'],
    description:
      'The API key when `--api-key` is left out (keep it out of the command line). `emulate` makes it the key clients must send.',
  },
  {
    name: 'JOBSTORM_EXPORT_HEADERS',
    flags: ['export-header'],
    description:
      'Headers for every live-metrics output, `Name=value,Name2=value2` (as `--export-header`, whose values are read from the variables it names).',
  },
  {
    name: 'GITHUB_STEP_SUMMARY',
    flags: [],
    description:
      'Set by GitHub Actions: `run`, `report`, `merge`, `compare` and `capacity` append their Markdown summary to that file.',
  },
];
