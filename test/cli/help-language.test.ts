import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const bin = join(root, 'dist/cli/main.js');

describe('help text language', () => {
  it('is English whatever the user’s locale: no yargs heading translated among English descriptions', async () => {
    for (const LANG of ['de_DE.UTF-8', 'fr_FR.UTF-8']) {
      const { stdout } = await promisify(execFile)(process.execPath, [bin, '--help'], {
        env: { ...process.env, LANG, LC_ALL: LANG },
      });
      expect(stdout).toContain('Commands:');
      expect(stdout).toContain('Show help');
      expect(stdout).not.toMatch(/Kommandos|Optionen|Commandes|Afficher/);
    }
  });
});
