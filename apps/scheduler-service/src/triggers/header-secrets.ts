/** Header names that carry a credential by their looks: signatures, tokens, shared secrets. */
const SECRET_NAME = /token|secret|signature|hmac|authorization|password|cookie|api-?key/i;

/**
 * An inbound call's headers without the ones that carry a credential (X-Hub-Signature-256,
 * Webhook-Signature, X-Gitlab-Token, Authorization, …): they are checked, then withheld from what is
 * stored with the run, from the runtime's dispatch and from `{{headers.…}}` (where they render as
 * nothing), since whoever reads a run could replay or reuse them.
 */
export function withoutSecretHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !SECRET_NAME.test(name)));
}
