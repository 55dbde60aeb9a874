/*
 * A Dockerfile read as a list of instructions, enough to replay a single-stage build outside a
 * container: continuation lines joined, comments dropped, COPY split into sources and destination.
 * Anything this replay cannot reproduce faithfully (ADD, multi-stage COPY --from, shell-changing
 * instructions) is an error, so the test never silently builds something else than the image.
 */

export type Instruction =
  | { kind: 'FROM'; image: string; line: number }
  | { kind: 'WORKDIR'; path: string; line: number }
  | { kind: 'COPY'; sources: string[]; dest: string; line: number }
  | { kind: 'RUN'; command: string; line: number }
  | { kind: 'USER'; user: string; line: number }
  | { kind: 'ENTRYPOINT'; argv: string[]; line: number }
  | { kind: 'ENV'; name: string; value: string; line: number };

const replayable = new Set([
  'FROM',
  'WORKDIR',
  'COPY',
  'RUN',
  'USER',
  'ENTRYPOINT',
  'ENV',
  'LABEL',
  'EXPOSE',
  'CMD',
]);

export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    let logical = lines[i] ?? '';
    if (/^\s*(#|$)/.test(logical)) continue;
    while (logical.endsWith('\\') && i + 1 < lines.length) {
      i++;
      const next = lines[i] ?? '';
      if (/^\s*#/.test(next)) continue;
      logical = `${logical.slice(0, -1)} ${next.trim()}`;
    }
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(logical);
    if (match === null) throw new Error(`Dockerfile:${String(start)}: cannot read "${logical}"`);
    const keyword = (match[1] ?? '').toUpperCase();
    const rest = (match[2] ?? '').trim();
    if (!replayable.has(keyword))
      throw new Error(`Dockerfile:${String(start)}: ${keyword} cannot be replayed outside a container`);
    out.push(...instruction(keyword, rest, start));
  }
  return out;
}

function instruction(keyword: string, rest: string, line: number): Instruction[] {
  switch (keyword) {
    case 'FROM':
      return [{ kind: 'FROM', image: rest.split(/\s+/)[0] ?? '', line }];
    case 'WORKDIR':
      return [{ kind: 'WORKDIR', path: rest, line }];
    case 'RUN':
      if (rest.startsWith('[')) throw new Error(`Dockerfile:${String(line)}: exec-form RUN is not replayed`);
      return [{ kind: 'RUN', command: rest, line }];
    case 'USER':
      return [{ kind: 'USER', user: rest, line }];
    case 'ENTRYPOINT': {
      const argv: unknown = JSON.parse(rest);
      if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string'))
        throw new Error(`Dockerfile:${String(line)}: ENTRYPOINT must be exec form`);
      return [{ kind: 'ENTRYPOINT', argv, line }];
    }
    case 'ENV': {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)[=\s]\s*(.*)$/.exec(rest);
      if (m === null) throw new Error(`Dockerfile:${String(line)}: cannot read ENV ${rest}`);
      return [{ kind: 'ENV', name: m[1] ?? '', value: m[2] ?? '', line }];
    }
    case 'COPY': {
      const words = rest.split(/\s+/);
      const flags = words.filter((w) => w.startsWith('--'));
      if (flags.some((f) => !f.startsWith('--chown=') && !f.startsWith('--chmod=')))
        throw new Error(`Dockerfile:${String(line)}: COPY ${flags.join(' ')} is not replayed`);
      const paths = words.filter((w) => !w.startsWith('--'));
      const dest = paths.pop();
      if (dest === undefined || paths.length === 0)
        throw new Error(`Dockerfile:${String(line)}: COPY needs a source and a destination`);
      return [{ kind: 'COPY', sources: paths, dest, line }];
    }
    default:
      return [];
  }
}
