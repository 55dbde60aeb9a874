import { CappedMap } from '../core/capped-map.js';
import type { WebhookRecord } from '../core/record.js';

/** Jobs remembered by webhook URL: enough for every job a run holds in the book at once. */
const MAX_OWNERS = 200_000;
/** Deliveries waiting for their submission's answer (a local server posts before it answers /runsync). */
const MAX_WAITING = 10_000;

/** The part of a webhook URL our receiver records as a delivery's `path`. */
function pathOf(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/**
 * Whose a delivery is when its body names no job (`adaptedShape: 'no-id'`): the job that was given
 * the URL it came to. Each job of a run gets a URL of its own, so the path is enough.
 */
export class WebhookOwners {
  private readonly owners = new CappedMap<string, string>(MAX_OWNERS);
  private readonly waiting = new CappedMap<string, WebhookRecord[]>(MAX_WAITING);

  /** A submission was answered with its job: returns the deliveries that came to its URL before. */
  own(webhookUrl: string, jobId: string): readonly WebhookRecord[] {
    const path = pathOf(webhookUrl);
    if (path === undefined) return [];
    this.owners.set(path, jobId);
    const early = this.waiting.get(path);
    if (early === undefined) return [];
    this.waiting.delete(path);
    return early;
  }

  /** The job a silent delivery belongs to, or undefined (then it waits for its submission). */
  ownerOf(r: WebhookRecord): string | undefined {
    const owner = this.owners.get(r.path);
    if (owner !== undefined) return owner;
    const early = this.waiting.get(r.path);
    if (early === undefined) this.waiting.set(r.path, [r]);
    else early.push(r);
    return undefined;
  }
}
