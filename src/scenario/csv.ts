/** One parsed CSV record and the 1-based line it starts on. */
export interface CsvRecord {
  readonly line: number;
  readonly fields: string[];
}

/**
 * RFC 4180 CSV: comma-separated, fields optionally in double quotes, `""` for a quote inside one,
 * quoted fields may span lines; CRLF or LF. Blank lines are skipped. Small and dependency-free
 * because data feeds are the only CSV we read.
 */
export function parseCsv(text: string): {
  records: CsvRecord[];
  problems: { line: number; message: string }[];
} {
  const records: CsvRecord[] = [];
  const problems: { line: number; message: string }[] = [];
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let quoteLine = 0;
  let sawField = false;
  const endRecord = (): void => {
    if (sawField || field !== '' || fields.length > 0)
      records.push({ line: recordLine, fields: [...fields, field] });
    fields = [];
    field = '';
    sawField = false;
  };
  for (let i = 0; i < src.length; i++) {
    const c = src.charAt(i);
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      quoteLine = line;
      sawField = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      sawField = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      field += c;
    }
  }
  // An unclosed quote swallowed the rest of the file: report that, not the mangled record.
  if (quoted) problems.push({ line: quoteLine, message: 'quoted field is never closed' });
  else endRecord();
  return { records, problems };
}
