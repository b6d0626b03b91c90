import { GuardedDispatcherOptions, createGuardedDispatcher } from '@aas/platform';
import { Agent } from 'undici';

/** The HTTP client for webhook deliveries: the installation's SSRF guard (libs/platform), its refusals naming the webhook. */
export function createWebhookDispatcher(options: Omit<GuardedDispatcherOptions, 'subject'>): Agent {
  return createGuardedDispatcher({ ...options, subject: 'webhook' });
}

export class InvalidWebhookUrlError extends Error {
  override name = 'InvalidWebhookUrlError';
}

/**
 * Validation of a webhook URL when it is created or updated. It resolves nothing: the address is
 * checked at connect time by createWebhookDispatcher, where DNS answers cannot change afterwards.
 */
export function assertAllowedWebhookUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidWebhookUrlError('the webhook URL must be an absolute http or https URL');
  }
  // An http(s) URL that parses always has a host: the WHATWG parser rejects `http://` and the like.
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidWebhookUrlError(`the webhook URL must use http or https, not ${parsed.protocol}`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new InvalidWebhookUrlError('the webhook URL must not contain a username or password');
  }
  // Checked on the text: the parser reports an empty fragment (`#` alone) as no fragment.
  if (url.includes('#')) throw new InvalidWebhookUrlError('the webhook URL must not contain a fragment (#)');
}
