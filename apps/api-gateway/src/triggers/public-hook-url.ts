/**
 * The public URL of an inbound endpoint, always under PUBLIC_BASE_URL (required at start): never
 * built from the Host or X-Forwarded-Host a caller sent, which could make the gateway hand out
 * a URL, and so a token, pointing at someone else's host.
 */
export function publicHookUrl(publicBaseUrl: string, triggerId: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/hooks/${triggerId}/${token}`;
}
