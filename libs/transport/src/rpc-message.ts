/**
 * What travels beside the payload: the caller's request id, for logs on both
 * sides, and the W3C trace context when tracing is on.
 */
export interface RpcMetadata {
  request_id?: string;
  traceparent?: string;
  tracestate?: string;
}

/** A request as written to a service's stream. */
export interface RpcRequestEntry {
  id: string;
  pattern: string;
  data: unknown;
  metadata: RpcMetadata;
  replyTo: string;
  /** Epoch ms after which the caller has given up; the request is then dropped, never run. */
  deadline: number;
}

export function encodeRequest(entry: RpcRequestEntry): string[] {
  return [
    'id', entry.id,
    'pattern', entry.pattern,
    'data', JSON.stringify(entry.data ?? null),
    'metadata', JSON.stringify(entry.metadata),
    'reply', entry.replyTo,
    'deadline', String(entry.deadline),
  ];
}

export function decodeRequest(fields: string[]): RpcRequestEntry | undefined {
  const map = fieldMap(fields);
  const deadline = Number(map.deadline);
  if (!map.id || !map.pattern || !map.reply || !map.deadline?.trim() || !Number.isFinite(deadline)) return undefined;
  try {
    return {
      id: map.id,
      pattern: map.pattern,
      data: JSON.parse(map.data ?? 'null'),
      metadata: JSON.parse(map.metadata ?? '{}') as RpcMetadata,
      replyTo: map.reply,
      deadline,
    };
  } catch {
    return undefined;
  }
}

export function fieldMap(fields: string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) map[fields[i]] = fields[i + 1];
  return map;
}
