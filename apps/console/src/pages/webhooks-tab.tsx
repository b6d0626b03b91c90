import type { Schemas } from '@aas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { api, unwrap } from '../api';
import { SecretOnce } from '../components/copy-button';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { useAgent } from './agent-page';
import { WebhookHealth } from './webhook-health';
import { ConfirmButton } from '../components/confirm-button';

type Webhook = Schemas['WebhookDto'];
export const WEBHOOK_EVENTS = ['run.started', 'run.completed', 'run.failed', 'run.stopped', 'run.paused'] as const;
type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

interface WebhookForm {
  url: string;
  events: WebhookEvent[];
}

function WebhookFields({ form }: { form: ReturnType<typeof useForm<WebhookForm>> }) {
  const { errors } = form.formState;
  return (
    <>
      <label>
        URL
        <input type="url" placeholder="https://example.com/hooks/agents" {...form.register('url', { required: 'A URL is required' })} aria-invalid={errors.url ? true : undefined} />
      </label>
      <fieldset className="event-choices">
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((event) => (
          <label key={event}>
            <input type="checkbox" value={event} {...form.register('events', { validate: (v) => v.length > 0 || 'Pick at least one event' })} />
            {event}
          </label>
        ))}
        {errors.events && <small className="error-note">{errors.events.message}</small>}
      </fieldset>
    </>
  );
}

/** The agent's webhooks: create (signing secret shown once), edit, disable, delete, and each one's delivery log. */
export function WebhooksTab() {
  const agent = useAgent();
  const client = useQueryClient();
  const path = { params: { path: { agent_id: agent.agent_id } } };
  const webhooks = useQuery({ queryKey: ['webhooks', agent.agent_id], queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/webhooks', path)) });
  const [created, setCreated] = useState<Schemas['CreatedWebhookDto'] | null>(null);
  const form = useForm<WebhookForm>({ defaultValues: { url: '', events: ['run.completed', 'run.failed'] } });
  const create = useMutation({
    mutationFn: (values: WebhookForm) => unwrap(api.POST('/v1/agents/{agent_id}/webhooks', { ...path, body: values })),
    onSuccess: (webhook) => {
      setCreated(webhook);
      form.reset();
      void client.invalidateQueries({ queryKey: ['webhooks', agent.agent_id] });
    },
  });
  return (
    <div>
      {created && <SecretOnce label={`Signing secret of ${created.url}`} value={created.signing_secret} onDone={() => setCreated(null)} />}
      {webhooks.isPending ? (
        <Loading what="webhooks" />
      ) : webhooks.isError ? (
        <ErrorNote error={webhooks.error} />
      ) : webhooks.data.webhooks.length === 0 ? (
        <Empty>No webhooks. Add one to be told when this agent's runs start, finish or fail.</Empty>
      ) : (
        <ul className="cards">
          {webhooks.data.webhooks.map((webhook) => (
            <WebhookCard key={webhook.webhook_id} webhook={webhook} />
          ))}
        </ul>
      )}
      <details>
        <summary role="button" className="secondary outline">
          Add a webhook
        </summary>
        <form onSubmit={form.handleSubmit((values) => create.mutate(values))} noValidate>
          <WebhookFields form={form} />
          <ErrorNote error={create.error} />
          <button type="submit" aria-busy={create.isPending}>
            Create webhook
          </button>
        </form>
      </details>
    </div>
  );
}

function WebhookCard({ webhook }: { webhook: Webhook }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const path = { params: { path: { agent_id: webhook.agent_id, webhook_id: webhook.webhook_id } } };
  const refresh = () => void client.invalidateQueries({ queryKey: ['webhooks', webhook.agent_id] });
  const form = useForm<WebhookForm>({ values: { url: webhook.url, events: webhook.events as WebhookEvent[] } });
  const update = useMutation({
    mutationFn: (body: Schemas['UpdateWebhookRequest']) => unwrap(api.PATCH('/v1/agents/{agent_id}/webhooks/{webhook_id}', { ...path, body })),
    onSuccess: () => {
      setEditing(false);
      refresh();
    },
  });
  const remove = useMutation({ mutationFn: () => unwrap(api.DELETE('/v1/agents/{agent_id}/webhooks/{webhook_id}', path)), onSuccess: refresh });
  return (
    <li>
      <article>
        <div className="section-head">
          <code className="clip">{webhook.url}</code>
          <StatusBadge status={webhook.status} />
        </div>
        <p className="muted">
          {webhook.events.join(', ')} · created <When at={webhook.created_at} />
        </p>
        <WebhookHealth webhook={webhook} />
        {editing ? (
          <form onSubmit={form.handleSubmit((values) => update.mutate(values))} noValidate>
            <WebhookFields form={form} />
            <div className="row-actions">
              <button type="submit" aria-busy={update.isPending}>
                Save
              </button>
              <button type="button" className="secondary outline" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </div>
          </form>
        ) : (
          <div className="row-actions">
            <Link role="button" className="secondary" to={`/agents/${webhook.agent_id}/webhooks/${webhook.webhook_id}`}>
              Deliveries
            </Link>
            <button type="button" className="secondary outline" onClick={() => setEditing(true)}>
              Edit
            </button>
            <button
              type="button"
              className="secondary outline"
              onClick={() => update.mutate({ status: webhook.status === 'active' ? 'disabled' : 'active' })}
            >
              {webhook.status === 'active' ? 'Disable' : 'Enable'}
            </button>
            <ConfirmButton
              title="Delete the webhook?"
              message={<p>Nothing more is sent to <code>{webhook.url}</code>; its delivery log goes with it.</p>}
              confirmLabel="Delete webhook"
              busy={remove.isPending}
              onConfirm={() => remove.mutate()}
            >
              Delete
            </ConfirmButton>
          </div>
        )}
        <ErrorNote error={update.error ?? remove.error} />
      </article>
    </li>
  );
}
