/**
 * Redis keys shared by the gateway (reads) and agents-service (writes), as
 * parts for RedisKeyspace.key(). A revocation marker outlives every gateway's
 * key cache, and each revocation is announced on the `revocations` channel
 * (the message is the key id), so gateways drop the key from their caches.
 */
export const AuthRedisKeys = {
  revokedKey: (keyId: string) => ['auth', 'revoked', keyId],
  lastUsed: ['auth', 'last-used'],
  revocations: ['auth', 'revocations'],
} as const;

export const REVOCATION_MARKER_TTL_SECONDS = 24 * 3600;
