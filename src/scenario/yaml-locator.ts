import { isMap, isPair, isScalar, isSeq, type Document, type Node } from 'yaml';
import type { KeyPath } from './path-format.js';

/**
 * Finds the offset in the source of the node a key path names, so that a schema issue can be
 * reported as file:line:column. A path into a missing key resolves to its parent's key (where the
 * missing key belongs).
 */
export class YamlLocator {
  constructor(private readonly doc: Document) {}

  offsetOf(path: KeyPath, atKey = false): number {
    let node: unknown = this.doc.contents;
    let best = rangeStart(node) ?? 0;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find(
          (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment),
        );
        if (pair === undefined) return best;
        const keyStart = rangeStart(pair.key) ?? best;
        if (last && atKey) return keyStart;
        const valueStart = rangeStart(pair.value);
        best = last ? (valueStart ?? keyStart) : keyStart;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item: unknown = node.items[segment];
        const start = rangeStart(item);
        if (start === undefined) return best;
        best = start;
        node = item;
      } else {
        return best;
      }
    }
    return best;
  }
}

function rangeStart(node: unknown): number | undefined {
  if (node === null || typeof node !== 'object' || !('range' in node)) return undefined;
  const range = (node as Node).range;
  return range?.[0];
}
