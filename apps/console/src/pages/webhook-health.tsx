import type { Schemas } from '@aas/sdk';
import { When } from '../components/time';

type Webhook = Schemas['WebhookDto'];

const DISABLED_BECAUSE: Record<NonNullable<Webhook['health']['disabled_reason']>, string> = {
  receiver_gone: 'Disabled: the receiver answered 410 Gone',
  disabled_by_owner: 'Disabled by its owner',
};

/** How the webhook's endpoint has been doing, as its deliveries show it (the API's `health`). */
export function WebhookHealth({ webhook }: { webhook: Webhook }) {
  const { health } = webhook;
  const failing = health.consecutive_failures > 0;
  return (
    <p className="small-print" data-testid="webhook-health">
      {health.disabled_reason && <strong className="health-warn">{DISABLED_BECAUSE[health.disabled_reason]}. </strong>}
      {failing ? (
        <span className="error-note">
          {health.consecutive_failures === 1 ? '1 failed attempt' : `${health.consecutive_failures} failed attempts in a row`}, the last <When at={health.last_error_at} />
          : <span className="mono">{health.last_error}</span>.{' '}
        </span>
      ) : health.last_success_at ? (
        <span className="health-ok">Healthy. </span>
      ) : (
        <span className="muted">No delivery yet. </span>
      )}
      {health.circuit_open_until && (
        <span className="health-warn">
          Deliveries wait until <When at={health.circuit_open_until} />, when one is tried again.{' '}
        </span>
      )}
      {health.last_success_at && (
        <span className="muted">
          Last delivered <When at={health.last_success_at} />.
        </span>
      )}
    </p>
  );
}
