import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DurationSchema, PROFILES, ProfileSchema } from '../../src/emulator/profile.js';

/*
 * Issue 47 item 7: `emulator.profile` took an object whose keys were documented nowhere. The
 * emulator page documents them; this keeps the page in step with the schema the emulator reads.
 */
const page = readFileSync(new URL('../../docs/emulator.md', import.meta.url), 'utf8');
const section = page.slice(page.indexOf('## Handler profiles'), page.indexOf('## OpenAI-compatible routes'));

describe('docs/emulator.md, handler profiles', () => {
  it('names every key of a profile object', () => {
    for (const key of Object.keys(ProfileSchema.shape)) expect(section).toContain(`| \`${key}\` |`);
  });

  it('names every duration kind with its fields', () => {
    for (const option of DurationSchema.options) {
      const fields = Object.keys(option.shape);
      const kind = option.shape.kind.value;
      expect(section).toContain(`{ kind: ${kind}, ${fields.filter((f) => f !== 'kind').join(', ')} }`);
    }
  });

  it('names every named profile', () => {
    for (const name of Object.keys(PROFILES)) expect(section).toContain(`\`${name}\``);
  });
});
