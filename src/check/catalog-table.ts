import { CHECK_CATALOG } from './catalog.js';

/** The README's check table, generated from the catalog so the two cannot drift apart. */
export function checkCatalogMarkdown(): string {
  const rows = CHECK_CATALOG.map(
    (c) => `| \`${c.id}\` | ${c.severity} | ${c.description} | \`${c.provenBy}\` |`,
  );
  return [
    '| check id | severity | fires when | proven by emulator fault |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
