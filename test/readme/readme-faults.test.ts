import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../../src/emulator/faults.js';

const page = new URL('../../docs/reference/faults.md', import.meta.url);

describe('emulator fault list (docs/reference/faults.md, linked from the README)', () => {
  it('is exactly the emulator fault registry (regenerate with npm run docs)', async () => {
    const text = await readFile(page, 'utf8');
    const start = '<!-- fault-list:start -->';
    const end = '<!-- fault-list:end -->';
    const i = text.indexOf(start);
    const j = text.indexOf(end);
    expect(i).toBeGreaterThan(0);
    const rows = Object.entries(FAULTS).map(([name, rule]) => `| \`${name}\` | ${rule} |`);
    const wanted = [start, '| fault | what it breaks |', '| --- | --- |', ...rows, end].join('\n');
    expect(text.slice(i, j + end.length)).toBe(wanted);
  });
});
