/**
 * Redis keys shared by the gateway (reads) and agents-service (writes), as
 * parts for RedisKeyspace.key(). A revocation marker outlives every gateway's
 * key cache, and each revocation is announced on the `revocations` channel
 * (the message is the key id), so gateways drop the key from their caches.
 * Ended console sessions (the session id) and deleted agents (`user_id:agent_id`)
 * are announced too, so gateways end the event streams opened with or on them.
 * `lastUsed` holds the keys used since agents-service last flushed it.
 */
export const AuthRedisKeys = {
  revokedKey: (keyId: string) => ['auth', 'revoked', keyId],
  lastUsed: ['auth', 'last-used'],
  revocations: ['auth', 'revocations'],
  sessionsEnded: ['auth', 'sessions-ended'],
  agentsDeleted: ['auth', 'agents-deleted'],
} as const;

export const REVOCATION_MARKER_TTL_SECONDS = 24 * 3600;
