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
  /**
   * 'fields': the caller reads the answer as separate fields, the response's JSON apart, so it can
   * pass it on unparsed. Absent (callers before it): one 'reply' field holding the whole answer.
   */
  replyFormat?: 'fields';
}

export function encodeRequest(entry: RpcRequestEntry): string[] {
  return [
    'id', entry.id,
    'pattern', entry.pattern,
    'data', JSON.stringify(entry.data ?? null),
    'metadata', JSON.stringify(entry.metadata),
    'reply', entry.replyTo,
    'deadline', String(entry.deadline),
    ...(entry.replyFormat ? ['format', entry.replyFormat] : []),
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
      ...(map.format === 'fields' ? { replyFormat: 'fields' as const } : {}),
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

/** An answer: a Problem Details error, or the handler's response. */
export interface RpcAnswer {
  err?: unknown;
  response?: unknown;
}

/** The fields of the reply stream entry answering `request`, in the format it asked for. */
export function encodeReply(request: RpcRequestEntry, answer: RpcAnswer): string[] {
  const failed = answer.err !== undefined && answer.err !== null;
  if (request.replyFormat !== 'fields') {
    return ['reply', JSON.stringify({ id: request.id, err: failed ? answer.err : null, response: answer.response ?? null })];
  }
  return failed
    ? ['id', request.id, 'err', JSON.stringify(answer.err)]
    : ['id', request.id, 'response', JSON.stringify(answer.response ?? null)];
}

/** A reply read back, its response still JSON text, for the caller to parse or pass on. */
export interface DecodedReply {
  id: string;
  err?: unknown;
  responseJson?: string;
}

/** Reads a reply stream entry of either format; undefined when it is not one. */
export function decodeReply(fields: string[]): DecodedReply | undefined {
  const map = fieldMap(fields);
  try {
    if (map.reply) {
      const reply = JSON.parse(map.reply) as { id: string; err: unknown; response: unknown };
      return reply.err !== null && reply.err !== undefined
        ? { id: reply.id, err: reply.err }
        : { id: reply.id, responseJson: JSON.stringify(reply.response ?? null) };
    }
    if (!map.id) return undefined;
    return map.err !== undefined ? { id: map.id, err: JSON.parse(map.err) } : { id: map.id, responseJson: map.response ?? 'null' };
  } catch {
    return undefined;
  }
}
