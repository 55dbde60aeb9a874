import { EXPORT_KINDS, EXPORT_KIND_TEXT } from '../../core/export-kind.js';

const TARGETS = EXPORT_KINDS.map((k) => `${k}=<${EXPORT_KIND_TEXT[k].flagUrl}>`).join(' or ');
/** `[prometheus:|otlp:]`: the kind prefix an --export-header may carry. */
export const KIND_PREFIXES = `[${EXPORT_KINDS.map((k) => `${k}:`).join('|')}]`;

/** The live-export flags, shared by `run` and `capacity` (parsed by parseExportSettings): `.options(EXPORT_OPTIONS)`. */
export const EXPORT_OPTIONS = {
  export: {
    type: 'string',
    array: true,
    describe: `stream live metrics: ${TARGETS} (repeatable)`,
  },
  'export-header': {
    type: 'string',
    array: true,
    describe: `auth header for --export as ${KIND_PREFIXES}Name=ENV_VAR, its value read from that variable (repeatable)`,
  },
  'export-interval': { type: 'string', describe: 'how often live metrics are sent (default 5s)' },
} as const;
