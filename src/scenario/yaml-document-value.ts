import { visit, type Document } from 'yaml';

/*
 * The JavaScript value of a parsed YAML document. yaml's toJS throws for an alias whose anchor is
 * not set before it, with the alias's name in the message; that name may have come from the
 * environment (a key that starts with `*`), so the problem is reported at the alias, by position.
 */

export type DocumentValue =
  { readonly value: unknown } | { readonly problems: readonly { offset: number; message: string }[] };

const MAX_ALIAS_COUNT = 1000;

export function documentValue(doc: Document): DocumentValue {
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    const problems: { offset: number; message: string }[] = [];
    visit(doc, {
      Alias(_key, node) {
        if (node.resolve(doc) === undefined) {
          problems.push({
            offset: node.range?.[0] ?? 0,
            message:
              'YAML: an alias (a value starting with *) names no anchor set before it; quote the value if it is text',
          });
        }
      },
    });
    if (problems.length === 0)
      problems.push({
        offset: 0,
        message: `YAML: aliases expand to more than ${String(MAX_ALIAS_COUNT)} nodes`,
      });
    return { problems };
  }
}
