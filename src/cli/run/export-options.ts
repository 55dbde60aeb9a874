/** The live-export flags, shared by `run` and `capacity` (parsed by parseExportSettings): `.options(EXPORT_OPTIONS)`. */
export const EXPORT_OPTIONS = {
  export: {
    type: 'string',
    array: true,
    describe:
      'stream live metrics: prometheus=<remote-write URL> or otlp=<OTLP/HTTP metrics URL> (repeatable)',
  },
  'export-header': {
    type: 'string',
    array: true,
    describe:
      'auth header for --export as [prometheus:|otlp:]Name=ENV_VAR, its value read from that variable (repeatable)',
  },
  'export-interval': { type: 'string', describe: 'how often live metrics are sent (default 5s)' },
} as const;
