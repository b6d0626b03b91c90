/** Message patterns are `<service>.<resource>.<action>`; the first segment names the service's request stream. */
export function serviceOfPattern(pattern: string): string {
  const service = pattern.split('.', 1)[0];
  if (!service) throw new Error(`Pattern "${pattern}" names no service`);
  return service;
}

export function requestStreamKey(prefix: string, service: string): string {
  return `${prefix}:rpc:${service}`;
}

export function replyStreamKey(prefix: string, clientId: string): string {
  return `${prefix}:rpc:reply:${clientId}`;
}

/** Exists while the consumer of that name is alive (it refreshes the key); gone soon after it dies. */
export function consumerAliveKey(prefix: string, service: string, consumer: string): string {
  return `${prefix}:rpc:${service}:alive:${consumer}`;
}
