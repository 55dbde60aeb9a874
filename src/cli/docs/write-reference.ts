import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { referencePages } from './reference-pages.js';

/*
 * `npm run docs`: writes the reference pages generated from the code, and removes pages of
 * docs/reference/ nothing generates any more. The only writer of those files: tests compare.
 */
const root = process.cwd();
const pages = referencePages();
for (const [path, text] of Object.entries(pages)) {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
  process.stdout.write(`wrote ${path}\n`);
}
for (const name of await readdir(join(root, 'docs/reference'))) {
  const path = `docs/reference/${name}`;
  if (name.endsWith('.md') && !(path in pages)) {
    await rm(join(root, path));
    process.stdout.write(`removed ${path} (no longer generated)\n`);
  }
}
