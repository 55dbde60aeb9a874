/** A run id's time stamp: UTC to the second, without separators (20261125T230241Z), sortable. */
export function runStamp(at: Date = new Date()): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** `<scenario>-<stamp>`, with `-shard<i>of<n>` for one shard of a run; the stamp at `epochMs` (the run's clock). */
export function runIdFor(
  scenarioName: string,
  epochMs: number,
  shard?: { index: number; count: number },
): string {
  const suffix = shard ? `-shard${String(shard.index)}of${String(shard.count)}` : '';
  return `${scenarioName}-${runStamp(new Date(epochMs))}${suffix}`;
}
