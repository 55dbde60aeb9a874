/** What the scenario file, the flags and the JSON Schema say of one live-export target. */
export interface ExportKindText {
  /** What it sends, after the kind's name in the scenario field's help. */
  readonly sends: string;
  /** Which URL `url` is, with the path a backend usually serves it on. */
  readonly url: string;
  /** The URL's name in `--export <kind>=<...>`. */
  readonly flagUrl: string;
}

/**
 * The live-export targets by name. Each one's sender is in src/export/exporters.ts, whose table the
 * compiler holds to these names; the names live here, in core, because the scenario schema and the
 * summary schema validate them too and may import nothing but core.
 */
export const EXPORT_KIND_TEXT = {
  prometheus: {
    sends: 'remote write',
    url: 'Remote-write URL (…/api/v1/write)',
    flagUrl: 'remote-write URL',
  },
  otlp: {
    sends: 'OTLP/HTTP metrics',
    url: 'OTLP/HTTP metrics URL (…/v1/metrics)',
    flagUrl: 'OTLP/HTTP metrics URL',
  },
} as const satisfies Readonly<Record<string, ExportKindText>>;

export type ExportKind = keyof typeof EXPORT_KIND_TEXT;

function kindNames<K extends string>(table: Readonly<Record<K, unknown>>): readonly [K, ...K[]] {
  const [first, ...rest] = Object.keys(table) as K[];
  if (first === undefined) throw new Error('EXPORT_KIND_TEXT lists no export target');
  return [first, ...rest];
}

/** In the table's order: the order of every list of kinds shown to a user. */
export const EXPORT_KINDS = kindNames(EXPORT_KIND_TEXT);

export function isExportKind(name: string): name is ExportKind {
  return Object.hasOwn(EXPORT_KIND_TEXT, name);
}

/** The scenario's `kind` help: "prometheus: remote write; otlp: OTLP/HTTP metrics." */
export function exportKindHelp(): string {
  return `${EXPORT_KINDS.map((k) => `${k}: ${EXPORT_KIND_TEXT[k].sends}`).join('; ')}.`;
}

/** The scenario's `url` help: every kind's URL. */
export function exportUrlHelp(): string {
  return `${EXPORT_KINDS.map((k) => EXPORT_KIND_TEXT[k].url).join(' or ')}.`;
}
