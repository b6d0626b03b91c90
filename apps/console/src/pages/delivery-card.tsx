import type { Schemas } from '@aas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api';
import { ErrorNote } from '../components/feedback';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';

type Delivery = Schemas['DeliveryDto'];
type Attempt = Schemas['DeliveryAttemptDto'];

/** The headers a receiver checks the signature with (docs/contract.md, Webhooks). */
const SIGNATURE_HEADERS = ['x-service-signature', 'webhook-signature', 'webhook-id', 'webhook-timestamp'];

/** One delivery: its event and status, every attempt's request and response, its body, redeliver. */
export function DeliveryCard({ delivery, agentId, webhookId }: { delivery: Delivery; agentId: string; webhookId: string }) {
  const client = useQueryClient();
  const redeliver = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v1/agents/{agent_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
          params: { path: { agent_id: agentId, webhook_id: webhookId, delivery_id: delivery.delivery_id } },
        }),
      ),
    onSettled: () => void client.invalidateQueries({ queryKey: ['deliveries', agentId, webhookId] }),
  });
  // The bytes sent (and signed): the API keeps the body as sent and answers it parsed, in the same order.
  const body = JSON.stringify(delivery.payload);
  return (
    <li data-testid="delivery">
      <article aria-label={`Delivery ${delivery.event} ${delivery.delivery_id}`}>
        <div className="section-head">
          <strong>{delivery.event}</strong>
          <StatusBadge status={delivery.status} />
          {delivery.test && <span className="badge badge-kind">test</span>}
          <span className="muted">
            <When at={delivery.created_at} />
          </span>
          <span className="spacer" />
          <button type="button" className="secondary outline small" onClick={() => redeliver.mutate()} aria-busy={redeliver.isPending}>
            Redeliver
          </button>
        </div>
        <p className="muted small-print">
          Delivery <code>{delivery.delivery_id}</code>
          {delivery.next_attempt_at && (
            <>
              {' '}
              · next attempt <When at={delivery.next_attempt_at} />
            </>
          )}
        </p>
        <ErrorNote error={redeliver.error} />
        {delivery.attempts.length === 0 ? (
          <p className="muted">No attempt yet.</p>
        ) : (
          <ol className="attempts" aria-label="Attempts">
            {delivery.attempts.map((attempt) => (
              <AttemptItem key={attempt.attempt} attempt={attempt} body={body} />
            ))}
          </ol>
        )}
        {delivery.attempts.length === 0 && (
          <details>
            <summary>Body</summary>
            <pre className="wrap">{body}</pre>
          </details>
        )}
      </article>
    </li>
  );
}

/** An attempt in one line, opening onto the request as sent and the response as kept. */
function AttemptItem({ attempt, body }: { attempt: Attempt; body: string }) {
  // Rendered once opened: a page of 20 deliveries does not carry every attempt's headers and bodies.
  const [open, setOpen] = useState(false);
  const ok = attempt.status_code !== null && attempt.status_code !== undefined && attempt.status_code < 300;
  return (
    <li data-testid="attempt">
      <details onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>
          Attempt {attempt.attempt}: <span className={ok ? 'health-ok' : 'error-note'}>{attempt.status_code ?? 'no answer'}</span> in {attempt.duration_ms} ms,{' '}
          <When at={attempt.started_at} />
          {attempt.error && <span className="error-note"> — {attempt.error}</span>}
        </summary>
        {open && (
          <div className="exchange">
            <section aria-label={`Request of attempt ${attempt.attempt}`}>
              <h3>Request</h3>
              {attempt.request_headers ? (
                <Headers headers={attempt.request_headers} label="Request headers" highlight={SIGNATURE_HEADERS} />
              ) : (
                <p className="muted">Headers not recorded (an attempt made before they were kept).</p>
            )}
            <h4>Body</h4>
            <pre className="wrap" data-testid="request-body">{body}</pre>
            <p className="muted small-print">The same on every attempt; the signatures cover exactly these bytes.</p>
          </section>
          <section aria-label={`Response of attempt ${attempt.attempt}`}>
            <h3>Response</h3>
            <p>
              Status <strong>{attempt.status_code ?? 'none'}</strong>
              {attempt.status_code === null || attempt.status_code === undefined ? ` (${attempt.error ?? 'no answer'})` : ''}
            </p>
            {attempt.response_headers ? <Headers headers={attempt.response_headers} label="Response headers" /> : <p className="muted">No headers: there was no answer.</p>}
            <h4>Body</h4>
            {attempt.response_body ? (
              <>
                <pre className="wrap" data-testid="response-body">{attempt.response_body}</pre>
                <p className="muted small-print">As kept: its first 2,048 characters.</p>
              </>
            ) : (
              <p className="muted">Empty, or none kept.</p>
            )}
          </section>
        </div>
        )}
      </details>
    </li>
  );
}

function Headers({ headers, label, highlight = [] }: { headers: Record<string, string>; label: string; highlight?: string[] }) {
  const entries = Object.entries(headers).sort(([a], [b]) => Number(highlight.includes(b.toLowerCase())) - Number(highlight.includes(a.toLowerCase())) || a.localeCompare(b));
  return (
    <table className="headers" aria-label={label}>
      <tbody>
        {entries.map(([name, value]) => (
          <tr key={name} className={highlight.includes(name.toLowerCase()) ? 'signature' : undefined}>
            <th scope="row">{name}</th>
            <td>
              <code>{value}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
