import type { Schemas } from '@aas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { format, subDays } from 'date-fns';
import { useForm } from 'react-hook-form';
import { api, unwrap } from '../api';
import { ErrorNote } from '../components/feedback';

type Webhook = Schemas['WebhookDto'];
type WebhookEvent = NonNullable<Schemas['SendTestEventRequest']['event']>;

/** Send a signed sample event now; send every failed delivery since a time again. */
export function DeliveryActions({ webhook }: { webhook: Webhook }) {
  return (
    <div className="delivery-actions">
      <TestEventForm webhook={webhook} />
      <RedeliverSinceForm webhook={webhook} />
    </div>
  );
}

function usePath(webhook: Webhook) {
  const client = useQueryClient();
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['deliveries', webhook.agent_id, webhook.webhook_id] });
    void client.invalidateQueries({ queryKey: ['webhook', webhook.agent_id, webhook.webhook_id] });
  };
  return { params: { path: { agent_id: webhook.agent_id, webhook_id: webhook.webhook_id } }, refresh };
}

function TestEventForm({ webhook }: { webhook: Webhook }) {
  const { params, refresh } = usePath(webhook);
  const form = useForm<{ event: WebhookEvent }>({ values: { event: webhook.events[0] as WebhookEvent } });
  const send = useMutation({
    mutationFn: (event: WebhookEvent) => unwrap(api.POST('/v1/agents/{agent_id}/webhooks/{webhook_id}/test', { params, body: { event } })),
    onSettled: refresh,
  });
  return (
    <form aria-labelledby="test-event-title" onSubmit={form.handleSubmit((values) => send.mutate(values.event))}>
      <h2 id="test-event-title">Send a test event</h2>
      <div className="row-actions">
        <select aria-label="Test event" {...form.register('event')}>
          {webhook.events.map((event) => (
            <option key={event} value={event}>
              {event}
            </option>
          ))}
        </select>
        <button type="submit" className="secondary" aria-busy={send.isPending}>
          Send test event
        </button>
      </div>
      <p className="muted small-print">A signed sample of the event, sent once now, also while the webhook is disabled.</p>
      {send.data && (
        <p className="muted small-print" role="status">
          Test {send.data.event} queued: it appears below as it is sent (once, never retried).
        </p>
      )}
      <ErrorNote error={send.error} />
    </form>
  );
}

function RedeliverSinceForm({ webhook }: { webhook: Webhook }) {
  const { params, refresh } = usePath(webhook);
  const form = useForm<{ since: string }>({ defaultValues: { since: format(subDays(new Date(), 1), "yyyy-MM-dd'T'HH:mm") } });
  const redeliver = useMutation({
    // datetime-local is the browser's local time; the API takes an instant.
    mutationFn: (since: string) => unwrap(api.POST('/v1/agents/{agent_id}/webhooks/{webhook_id}/deliveries/redeliver', { params, body: { since: new Date(since).toISOString() } })),
    onSettled: refresh,
  });
  const { errors } = form.formState;
  return (
    <form aria-labelledby="redeliver-title" onSubmit={form.handleSubmit((values) => redeliver.mutate(values.since))} noValidate>
      <h2 id="redeliver-title">Send the failed ones again</h2>
      <div className="row-actions">
        <input
          type="datetime-local"
          aria-label="Failed since (your local time)"
          title="Failed since (your local time)"
          aria-invalid={errors.since ? true : undefined}
          {...form.register('since', { required: 'A time is required', validate: (value) => !Number.isNaN(new Date(value).getTime()) || 'Not a time' })}
        />
        <button type="submit" className="secondary" aria-busy={redeliver.isPending}>
          Redeliver failed
        </button>
      </div>
      <p className="muted small-print">Every failed delivery made since then (your local time), oldest first.</p>
      {errors.since && <small className="error-note">{errors.since.message}</small>}
      {redeliver.data && (
        <p className="muted small-print" role="status" data-testid="redelivered">
          {redeliver.data.queued === 1 ? '1 failed delivery' : `${redeliver.data.queued} failed deliveries`} queued again, oldest first
          {redeliver.data.more ? '; more are left: redeliver again to queue the next ones.' : '.'}
        </p>
      )}
      <ErrorNote error={redeliver.error} />
    </form>
  );
}
