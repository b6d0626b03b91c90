/**
 * Redis keys shared by the gateway (reads) and agents-service (writes), as
 * parts for RedisKeyspace.key(). A revocation marker outlives every gateway's
 * key cache, so a revoked key fails on its very next request on any replica.
 */
export const AuthRedisKeys = {
  revokedKey: (keyId: string) => ['auth', 'revoked', keyId],
  lastUsed: ['auth', 'last-used'],
} as const;

export const REVOCATION_MARKER_TTL_SECONDS = 24 * 3600;
