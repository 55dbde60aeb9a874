import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../../src/emulator/faults.js';

const readme = new URL('../../README.md', import.meta.url);

describe('README fault list', () => {
  it('is exactly the emulator fault registry (regenerate with UPDATE_README=1)', async () => {
    const text = await readFile(readme, 'utf8');
    const start = '<!-- fault-list:start -->';
    const end = '<!-- fault-list:end -->';
    const i = text.indexOf(start);
    const j = text.indexOf(end);
    expect(i).toBeGreaterThan(0);
    const rows = Object.entries(FAULTS).map(([name, rule]) => `| \`${name}\` | ${rule} |`);
    const wanted = [start, '| fault | what it breaks |', '| --- | --- |', ...rows, end].join('\n');
    if (process.env.UPDATE_README === '1') {
      await writeFile(readme, text.slice(0, i) + wanted + text.slice(j + end.length));
      return;
    }
    expect(text.slice(i, j + end.length)).toBe(wanted);
  });
});
