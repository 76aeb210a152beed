/**
 * `check-traffic --shard i/n`: which exchanges of a capture shard i judges, so that every sequence the
 * traffic rules follow (rules.ts TrafficState) stays in one shard and the merged report of all shards
 * equals the report of the capture judged whole. Sequences are keyed by the credential a request
 * carried (catalogs, Idempotency-Key replays, usage reads), by a job's id (MJOB-025) and by an asset's
 * owner (MASSET-003, a download by another key). So the unit of assignment is a group of credentials:
 * the first pass (judge.ts readCapture, over the whole capture in every shard) joins two credentials
 * when the capture shows one reading a job or downloading an asset the other's job named, or when a
 * gateway log names one tenant for both. A group goes to shard 1 + (a digest of its smallest member)
 * mod n; a request with no credential belongs to its client address where a gateway log names one,
 * else to no one, and the group of no one (and every unreadable part of the capture) is shard 1's.
 * Not joined: a usage listing read by another key than the one whose reply it names (USAGE-080) when
 * nothing else links the two keys; name the tenant in a gateway log to keep a tenant's keys together.
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.ts';
import { credentialOf, harHeaders, pathOf } from './capture.ts';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;

/** `i/n` read into numbers (1 <= i <= n), or a usage error. */
export function parseShard(raw: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(raw);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || index < 1 || index > count)
    throw new UsageError(`--shard: '${raw}' is not I/N with 1 <= I <= N (e.g. 2/4)`);
  return { index, count };
}

/** Who sent an entry, as the shards know it: its credential, else its client, else no one (''). */
function identityOf(e: Json | undefined): string {
  const req = obj(e?.request);
  const who = credentialOf(harHeaders(req?.headers), e?._credential);
  if (who) return who;
  return typeof e?._client === 'string' ? `client ${e._client}` : '';
}

/** A 2xx reply's JSON body, when the entry holds one (jobs name their id and asset). */
function replyJson(e: Json | undefined): Json | undefined {
  const res = obj(e?.response);
  const content = obj(res?.content);
  if (typeof res?.status !== 'number' || res.status < 200 || res.status > 299) return undefined;
  if (typeof content?.text !== 'string') return undefined;
  try {
    const text =
      content.encoding === 'base64' ? Buffer.from(content.text, 'base64').toString('utf8') : content.text;
    return obj(JSON.parse(text));
  } catch {
    return undefined;
  }
}

const JOB = /^\/v1\/media\/jobs(?:\/([^/?]+))?(?:\?|$)/;
const ASSET = /^\/v1\/media\/assets\/([^/?]+)(?:\?|$)/;

export class ShardPlan {
  /** Union-find over identities and the jobs and assets that link them: each node's parent. */
  private readonly parent = new Map<string, string>();
  /** Per root: the smallest identity of its group (jobs and assets are no identities). */
  private readonly least = new Map<string, string>();
  private readonly shardOf = new Map<string, number>();

  constructor(
    readonly index: number,
    readonly count: number,
  ) {}

  static of(raw: string | undefined): ShardPlan | undefined {
    if (raw === undefined) return undefined;
    const { index, count } = parseShard(raw);
    return new ShardPlan(index, count);
  }

  get label(): string {
    return `${this.index}/${this.count}`;
  }

  /** Pass 1, every entry of the capture in order: what joins its sender to another's group. */
  learn(entry: unknown): void {
    const e = obj(entry);
    const req = obj(e?.request);
    if (typeof req?.url !== 'string') return;
    const id = identityOf(e);
    this.node(id, true);
    if (typeof e?._tenant === 'string') this.union(id, `tenant ${e._tenant}`);
    const path = pathOf(req.url);
    const asset = ASSET.exec(path)?.[1];
    // A download with a key (MASSET-003 compares keys); one without is judged alone (MASSET-002).
    if (asset !== undefined && req.method === 'GET' && id !== '')
      this.union(id, `asset ${decodeURIComponent(asset)}`);
    if (!JOB.test(path)) return;
    const job = replyJson(e);
    if (typeof job?.id === 'string') this.union(id, `job ${job.id}`);
    if (typeof job?.asset_id === 'string') this.union(id, `asset ${job.asset_id}`);
  }

  /** Pass 2: whether this shard judges the entry (an unreadable part, `undefined`, is shard 1's). */
  owns(entry: unknown): boolean {
    if (entry === undefined) return this.index === 1;
    const id = identityOf(obj(entry));
    this.node(id, true);
    const root = this.find(id);
    let shard = this.shardOf.get(root);
    if (shard === undefined) {
      const least = this.least.get(root) ?? '';
      shard =
        least === ''
          ? 1
          : 1 +
            (Number.parseInt(createHash('sha256').update(least).digest('hex').slice(0, 8), 16) % this.count);
      this.shardOf.set(root, shard);
    }
    return shard === this.index;
  }

  private node(n: string, identity: boolean): void {
    if (this.parent.has(n)) return;
    this.parent.set(n, n);
    if (identity) this.least.set(n, n);
  }

  private find(n: string): string {
    this.node(n, false);
    let root = n;
    while (this.parent.get(root) !== root) root = this.parent.get(root)!;
    // Path compression: every node on the way points at the root.
    for (let x = n; x !== root; ) {
      const next = this.parent.get(x)!;
      this.parent.set(x, root);
      x = next;
    }
    return root;
  }

  private union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    this.parent.set(rb, ra);
    const la = this.least.get(ra);
    const lb = this.least.get(rb);
    if (lb !== undefined && (la === undefined || lb < la)) this.least.set(ra, lb);
    this.least.delete(rb);
  }
}
