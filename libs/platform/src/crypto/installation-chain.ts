import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** The header webhook-delivery adds to every delivery: which run chain the delivery comes from, signed by this installation. */
export const CHAIN_HEADER = 'aas-chain';

const VERSION = 'v1';
/** A header signed longer ago (or further ahead) than this is ignored, as Standard Webhooks' tolerance. */
export const CHAIN_HEADER_TOLERANCE_SECONDS = 300;
const HKDF_INFO = 'aas installation chain header v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_DEPTH = 1_000_000;

/** A run's place in its chain: the run that started the chain, and how many hops from it the run is. */
export interface ChainLink {
  rootRunId: string;
  depth: number;
}

/** What a chain header is bound to: the delivery's `webhook-id`, its exact body, the endpoint it is addressed to, and the time of the call. */
export interface SignedCall {
  deliveryId: string;
  body: string;
  /** The inbound endpoint the call is addressed to, `<trigger id>/<token>` (inboundTargetOf); '' for any other URL. */
  target: string;
  now: Date;
}

const INBOUND_PATH = /\/hooks\/([^/?#]+)\/([^/?#]+)\/?$/;

/**
 * The inbound endpoint a URL path (with or without its query) addresses, `<trigger id>/<token>`, as a chain
 * header is bound to it; '' for a path that is not an inbound endpoint's.
 */
export function inboundTargetOf(path: string): string {
  const match = INBOUND_PATH.exec(path.split('?')[0]);
  return match ? `${match[1]}/${match[2]}` : '';
}

/**
 * Signs and checks the `aas-chain` header: `v1,<root run id>,<depth>,<unix seconds>,<signature>`, the
 * signature an HMAC-SHA256 over those, the delivery's id and body digest and the inbound endpoint it is
 * addressed to (`<trigger id>/<token>`, or nothing for another URL), keyed by a key derived
 * (HKDF-SHA256) from WEBHOOK_SECRET_KEY, so no new secret is deployed and the sealing key itself never
 * signs anything. Bound to the delivery id, body and target endpoint, a captured header replayed within the
 * tolerance is the same delivery to the same endpoint again, which that endpoint answers with its first run;
 * replayed onto any other URL it checks nothing (and exempts nothing from the gateway's address charge).
 */
export class InstallationChainKey {
  private constructor(private readonly key: Buffer) {}

  static derivedFrom(secretKeyBase64: string): InstallationChainKey {
    const secret = Buffer.from(secretKeyBase64, 'base64');
    return new InstallationChainKey(Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), HKDF_INFO, 32)));
  }

  sign(link: ChainLink, call: SignedCall): string {
    const seconds = Math.floor(call.now.getTime() / 1000);
    return [VERSION, link.rootRunId, link.depth, seconds, this.mac(link.rootRunId, link.depth, seconds, call)].join(',');
  }

  /** The link the header names when its signature checks and it is within the tolerance; null for a forged, stale or malformed one. */
  verify(value: string | undefined, call: SignedCall): ChainLink | null {
    const parts = value?.split(',');
    if (!parts || parts.length !== 5 || parts[0] !== VERSION || !UUID.test(parts[1]) || call.deliveryId === '') return null;
    const [depth, seconds] = [Number(parts[2]), Number(parts[3])];
    if (!Number.isSafeInteger(depth) || depth < 0 || depth > MAX_DEPTH || !/^\d{1,12}$/.test(parts[3])) return null;
    if (Math.abs(call.now.getTime() / 1000 - seconds) > CHAIN_HEADER_TOLERANCE_SECONDS) return null;
    const expected = Buffer.from(this.mac(parts[1], depth, seconds, call));
    const given = Buffer.from(parts[4]);
    return given.length === expected.length && timingSafeEqual(given, expected) ? { rootRunId: parts[1], depth } : null;
  }

  private mac(rootRunId: string, depth: number, seconds: number, call: SignedCall): string {
    const bodyDigest = createHash('sha256').update(call.body, 'utf8').digest('base64url');
    const signed = [VERSION, rootRunId, depth, seconds, call.deliveryId, bodyDigest, call.target].join('.');
    return createHmac('sha256', this.key).update(signed, 'utf8').digest('base64url');
  }
}
