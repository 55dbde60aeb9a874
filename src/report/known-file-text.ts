import { Document, isMap, isSeq } from 'yaml';
import { isAccepted, type KnownDeviation, type KnownOutcome } from '../core/known-deviation.js';
import { isOperation } from '../core/operation.js';
import { entryOf } from './known-summary.js';
import type { Summary, ViolationSummary } from './summary.js';

/** What a new entry says of itself: who accepts it, why, and until when. */
export interface KnownProvenance {
  why: string;
  who: string;
  expires?: string;
}

/** A known-deviations file made from a run's findings, and what it left out. */
export interface KnownFileText {
  text: string;
  /** Entries the run's known file had and that still matched, kept as they were. */
  kept: KnownDeviation[];
  /** Entries written for the run's new findings. */
  added: KnownDeviation[];
  /** Entries of the run's known file left out: expired, or no longer seen. */
  dropped: KnownOutcome[];
}

/** One entry per operation and status the id's new findings cited, each with a comment of its own. */
function newEntries(v: ViolationSummary, p: KnownProvenance): { entry: KnownDeviation; comment: string }[] {
  return (v.exchanges ?? []).map((x) => {
    const example = v.examples.find((e) => !isAccepted(e) && e.op === x.op && e.evidence.status === x.status);
    const entry: KnownDeviation = {
      check: v.id,
      ...(x.op !== undefined && isOperation(x.op) ? { operation: x.op } : {}),
      ...(x.status === undefined ? {} : { status: x.status }),
      why: p.why,
      who: p.who,
      ...(p.expires === undefined ? {} : { expires: p.expires }),
    };
    const said = example ? `, e.g. ${example.message.split('\n')[0] ?? ''}` : '';
    return { entry, comment: ` ${String(x.count)} finding${x.count === 1 ? '' : 's'}${said}` };
  });
}

/**
 * `jobstorm known <run>`: the deviations to accept so that this run's findings no longer fail it.
 * Entries of the run's own known file that still matched are kept as written; every new finding
 * gets an entry per operation and status it cited, saying `p`'s why and who. A message pattern is
 * left for the team to add: one written from a message would carry job ids and times.
 */
export function knownFileText(s: Summary, p: KnownProvenance): KnownFileText {
  const outcomes = s.known?.entries ?? [];
  const matched = outcomes.filter((e) => e.state === 'matched');
  const kept = matched.map(entryOf);
  const dropped = outcomes.filter((e) => e.state !== 'matched');
  const fresh = s.violations.flatMap((v) => newEntries(v, p));
  const doc = new Document({ deviations: [...kept, ...fresh.map((f) => f.entry)] });
  doc.commentBefore = ` Known deviations of run ${s.run.id} (scenario ${s.run.scenario}, ${s.run.start}), written by jobstorm known.
 Findings an entry matches are reported as known and do not fail a run (--known FILE); see docs/checks.md.`;
  const comments = [
    ...matched.map(
      (e) => ` kept from ${s.known?.file ?? ''}: ${String(e.findings)} finding${e.findings === 1 ? '' : 's'}`,
    ),
    ...fresh.map((f) => f.comment),
  ];
  const list = doc.get('deviations');
  if (isSeq(list))
    list.items.forEach((item, i) => {
      const comment = comments[i];
      if (isMap(item) && comment !== undefined) item.commentBefore = comment;
    });
  return { text: doc.toString({ lineWidth: 0 }), kept, added: fresh.map((f) => f.entry), dropped };
}
