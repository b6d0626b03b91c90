import type { Schemas } from '@aas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type UseFormReturn, useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { api, unwrap } from '../api';
import { CopyButton } from '../components/copy-button';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { type Verification, canSignHere, signedHeaders } from '../inbound-signing';
import { useAgent } from './agent-page';
import { agentLabel } from './agents-page';
import { ConfirmButton } from '../components/confirm-button';

type Trigger = Schemas['TriggerDto'];
type SourceEvent = NonNullable<Trigger['events']>[number];
const SOURCE_EVENTS: SourceEvent[] = ['run.completed', 'run.failed', 'run.stopped', 'run.paused'];
const VERIFICATIONS: Record<Verification, string> = {
  none: 'None: the secret URL alone',
  standard_webhooks: 'Standard Webhooks signature',
  github: 'GitHub signature (X-Hub-Signature-256)',
};
/** The agents offered as sources of an event trigger: the API's largest page. */
const SOURCE_AGENTS_LIMIT = 200;

/** An inbound endpoint's URL and secret, which the API shows only when it is created or rotated. */
interface Credentials {
  triggerId: string;
  name: string;
  verification: Verification;
  url: string;
  secret: string;
  rotated: boolean;
}

/** The agent's triggers: inbound webhook endpoints and event triggers; create, test, rotate, edit, enable/disable, delete. */
export function TriggersTab() {
  const agent = useAgent();
  const triggers = useQuery({
    queryKey: ['triggers', agent.agent_id],
    queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/triggers', { params: { path: { agent_id: agent.agent_id } } })),
    // Last triggered and last error change as calls and runs arrive.
    refetchInterval: 5000,
  });
  const agents = useSourceAgents();
  const agentNames = new Map((agents.data?.agents ?? []).map((a) => [a.agent_id, a.agent_id === agent.agent_id ? `${agentLabel(a)} (this agent)` : agentLabel(a)]));
  const [credentials, setCredentials] = useState<Credentials | null>(null);
  return (
    <div>
      <p className="muted">
        A trigger starts a run of this agent: an <strong>inbound webhook</strong> is a URL other systems POST JSON to; an <strong>event trigger</strong> follows another
        agent's runs as they end. The run's message is rendered from the trigger's template.
      </p>
      {credentials && <CredentialsOnce credentials={credentials} agentId={agent.agent_id} onDone={() => setCredentials(null)} />}
      {triggers.isPending ? (
        <Loading what="triggers" />
      ) : triggers.isError ? (
        <ErrorNote error={triggers.error} />
      ) : triggers.data.triggers.length === 0 ? (
        <Empty>No triggers. Add an inbound webhook for other systems to start this agent, or an event trigger to start it when another agent's run ends.</Empty>
      ) : (
        <ul className="cards" aria-label="Triggers">
          {triggers.data.triggers.map((trigger) => (
            <TriggerCard key={trigger.trigger_id} trigger={trigger} agentNames={agentNames} onCredentials={setCredentials} />
          ))}
        </ul>
      )}
      <div className="add-triggers">
        <details>
          <summary role="button" className="secondary outline">
            Add an inbound webhook
          </summary>
          <CreateWebhookForm agentId={agent.agent_id} onCreated={setCredentials} />
        </details>
        <details>
          <summary role="button" className="secondary outline">
            Add an event trigger
          </summary>
          <CreateEventForm agentId={agent.agent_id} agents={agents} />
        </details>
      </div>
    </div>
  );
}

function TemplateField({ form, kind }: { form: UseFormReturn<any>; kind: Trigger['kind'] }) {
  const names = kind === 'webhook' ? '{{payload.field}}, {{headers.x-github-event}}, {{trigger.name}}' : '{{source_run.run_id}}, {{source_run.outcome}}, {{source_run.summary}}, {{source_run.event}}';
  return (
    <label>
      Message template
      <textarea className="mono" rows={3} spellCheck={false} placeholder={kind === 'webhook' ? 'Deploy {{payload.ref}} of {{payload.repository.name}}' : 'Check what {{source_run.run_id}} did ({{source_run.outcome}})'} {...form.register('message_template')} />
      <small>Mustache, rendered into the run's message: {names}. Empty: the run starts with no message.</small>
    </label>
  );
}

interface WebhookForm {
  name: string;
  verification: Verification;
  message_template: string;
}

function CreateWebhookForm({ agentId, onCreated }: { agentId: string; onCreated: (credentials: Credentials) => void }) {
  const client = useQueryClient();
  const form = useForm<WebhookForm>({ defaultValues: { name: '', verification: 'none', message_template: '' } });
  const create = useMutation({
    mutationFn: (values: WebhookForm) =>
      unwrap(
        api.POST('/v1/agents/{agent_id}/triggers', {
          params: { path: { agent_id: agentId } },
          body: { kind: 'webhook', name: values.name.trim(), verification: values.verification, message_template: values.message_template || undefined },
        }),
      ),
    onSuccess: (created) => {
      onCreated({ triggerId: created.trigger_id, name: created.name, verification: created.verification ?? 'none', url: created.url ?? '', secret: created.secret ?? '', rotated: false });
      form.reset();
      void client.invalidateQueries({ queryKey: ['triggers', agentId] });
    },
  });
  return (
    <form onSubmit={form.handleSubmit((values) => create.mutate(values))} noValidate aria-label="New inbound webhook">
      <div className="grid">
        <label>
          Name
          <input placeholder="e.g. github-pushes" {...form.register('name', { maxLength: 200 })} />
        </label>
        <label>
          Verification
          <select {...form.register('verification')}>
            {Object.entries(VERIFICATIONS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <TemplateField form={form} kind="webhook" />
      <ErrorNote error={create.error} />
      <button type="submit" aria-busy={create.isPending}>
        Create inbound webhook
      </button>
    </form>
  );
}

interface EventForm {
  name: string;
  source_agent_id: string;
  events: SourceEvent[];
  message_template: string;
}

function CreateEventForm({ agentId, agents }: { agentId: string; agents: ReturnType<typeof useSourceAgents> }) {
  const client = useQueryClient();
  const form = useForm<EventForm>({ defaultValues: { name: '', source_agent_id: '', events: ['run.completed'], message_template: '' } });
  const { errors } = form.formState;
  const create = useMutation({
    mutationFn: (values: EventForm) =>
      unwrap(
        api.POST('/v1/agents/{agent_id}/triggers', {
          params: { path: { agent_id: agentId } },
          body: { kind: 'event', name: values.name.trim(), source_agent_id: values.source_agent_id, events: values.events, message_template: values.message_template || undefined },
        }),
      ),
    onSuccess: () => {
      form.reset();
      void client.invalidateQueries({ queryKey: ['triggers', agentId] });
    },
  });
  return (
    <form onSubmit={form.handleSubmit((values) => create.mutate(values))} noValidate aria-label="New event trigger">
      <div className="grid">
        <label>
          Name
          <input placeholder="e.g. after the nightly import" {...form.register('name', { maxLength: 200 })} />
        </label>
        <label>
          Source agent
          <select aria-invalid={errors.source_agent_id ? true : undefined} {...form.register('source_agent_id', { required: 'Pick the agent whose runs start this one' })}>
            <option value="">{agents.isPending ? 'Loading agents…' : 'Pick an agent'}</option>
            {(agents.data?.agents ?? []).map((a) => (
              <option key={a.agent_id} value={a.agent_id}>
                {agentLabel(a)}
                {a.agent_id === agentId ? ' (this agent)' : ''}
              </option>
            ))}
          </select>
          {errors.source_agent_id && <small className="error-note">{errors.source_agent_id.message}</small>}
        </label>
      </div>
      <ErrorNote error={agents.error} />
      <fieldset className="event-choices">
        <legend>When its run ends with</legend>
        {SOURCE_EVENTS.map((event) => (
          <label key={event}>
            <input type="checkbox" value={event} {...form.register('events', { validate: (v) => v.length > 0 || 'Pick at least one event' })} />
            {event}
          </label>
        ))}
        {errors.events && <small className="error-note">{errors.events.message}</small>}
      </fieldset>
      <TemplateField form={form} kind="event" />
      <ErrorNote error={create.error} />
      <button type="submit" aria-busy={create.isPending}>
        Create event trigger
      </button>
    </form>
  );
}

/** The agents an event trigger can follow (also names the sources on the cards). */
function useSourceAgents() {
  return useQuery({ queryKey: ['agents', 'trigger-sources'], queryFn: () => unwrap(api.GET('/v1/agents', { params: { query: { limit: SOURCE_AGENTS_LIMIT } } })) });
}

function TriggerCard({ trigger, agentNames, onCredentials }: { trigger: Trigger; agentNames: Map<string, string>; onCredentials: (credentials: Credentials) => void }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const path = { params: { path: { agent_id: trigger.agent_id, trigger_id: trigger.trigger_id } } };
  const refresh = () => void client.invalidateQueries({ queryKey: ['triggers', trigger.agent_id] });
  const update = useMutation({
    mutationFn: (body: Schemas['UpdateTriggerRequest']) => unwrap(api.PATCH('/v1/agents/{agent_id}/triggers/{trigger_id}', { ...path, body })),
    onSuccess: () => {
      setEditing(false);
      refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/agents/{agent_id}/triggers/{trigger_id}/rotate', path)),
    onSuccess: (rotated) =>
      onCredentials({ triggerId: trigger.trigger_id, name: trigger.name, verification: trigger.verification ?? 'none', url: rotated.url, secret: rotated.secret, rotated: true }),
  });
  const remove = useMutation({ mutationFn: () => unwrap(api.DELETE('/v1/agents/{agent_id}/triggers/{trigger_id}', path)), onSuccess: refresh });
  const label = trigger.name || 'Unnamed trigger';
  const source = trigger.source_agent_id ?? '';
  return (
    <li>
      <article aria-label={`Trigger ${label}`}>
        <div className="section-head">
          <strong>{label}</strong>
          <span className="badge badge-kind">{trigger.kind === 'webhook' ? 'inbound webhook' : 'event'}</span>
          <StatusBadge status={trigger.status} />
        </div>
        <p className="muted">
          {trigger.kind === 'webhook' ? (
            <>Verification: {VERIFICATIONS[trigger.verification ?? 'none']}</>
          ) : (
            <>
              When <Link to={`/agents/${source}`}>{agentNames.get(source) ?? `Agent ${source.slice(0, 8)}`}</Link>'s run ends with {trigger.events?.join(', ')}
            </>
          )}
          {' · '}last triggered {trigger.last_triggered_at ? <When at={trigger.last_triggered_at} /> : 'never'}
        </p>
        {trigger.last_error && (
          <p className="error-note" data-testid="trigger-last-error">
            Last error (<When at={trigger.last_error_at} />): {trigger.last_error}
          </p>
        )}
        {editing ? (
          <EditTriggerForm trigger={trigger} update={update} onCancel={() => setEditing(false)} />
        ) : (
          <>
            <p className="template">
              {trigger.message_template ? (
                <>
                  Message: <code>{trigger.message_template}</code>
                </>
              ) : (
                <span className="muted">No message template: its runs start with no message.</span>
              )}
            </p>
            <div className="row-actions">
              <button type="button" className="secondary outline" onClick={() => setEditing(true)}>
                Edit
              </button>
              <button type="button" className="secondary outline" onClick={() => update.mutate({ status: trigger.status === 'active' ? 'disabled' : 'active' })} aria-busy={update.isPending && !editing}>
                {trigger.status === 'active' ? 'Disable' : 'Enable'}
              </button>
              {trigger.kind === 'webhook' && (
                <ConfirmButton
                  title={`Rotate the URL and secret of "${label}"?`}
                  message={<p>The old ones stop working at once; senders need the new ones.</p>}
                  confirmLabel="Rotate"
                  busy={rotate.isPending}
                  onConfirm={() => rotate.mutate()}
                >
                  Rotate URL and secret
                </ConfirmButton>
              )}
              <ConfirmButton
                title={`Delete the trigger "${label}"?`}
                message={<p>{trigger.kind === 'webhook' ? 'Its URL answers 404 from now on.' : 'Its source agent\'s runs no longer start this agent.'}</p>}
                confirmLabel="Delete trigger"
                busy={remove.isPending}
                onConfirm={() => remove.mutate()}
              >
                Delete
              </ConfirmButton>
            </div>
          </>
        )}
        <ErrorNote error={update.error ?? rotate.error ?? remove.error} />
      </article>
    </li>
  );
}

function EditTriggerForm({
  trigger,
  update,
  onCancel,
}: {
  trigger: Trigger;
  update: { mutate: (body: Schemas['UpdateTriggerRequest']) => void; isPending: boolean };
  onCancel: () => void;
}) {
  const form = useForm<{ name: string; message_template: string }>({ defaultValues: { name: trigger.name, message_template: trigger.message_template ?? '' } });
  return (
    <form onSubmit={form.handleSubmit((values) => update.mutate({ name: values.name.trim(), message_template: values.message_template || null }))} noValidate>
      <label>
        Name
        <input {...form.register('name', { maxLength: 200 })} />
      </label>
      <TemplateField form={form} kind={trigger.kind} />
      <div className="row-actions">
        <button type="submit" aria-busy={update.isPending}>
          Save
        </button>
        <button type="button" className="secondary outline" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The URL and secret, shown once with copy buttons, and a test payload sent while they are known. */
function CredentialsOnce({ credentials, agentId, onDone }: { credentials: Credentials; agentId: string; onDone: () => void }) {
  const { url, secret, verification, rotated, name } = credentials;
  return (
    <article className="secret-once" aria-label="Endpoint URL and secret">
      <p>
        <strong>
          {rotated ? 'New URL and secret' : 'URL and secret'} of "{name || 'Unnamed trigger'}"
        </strong>{' '}
        — shown only now; copy them and keep them safe.{rotated && ' The old URL and secret no longer work.'}
      </p>
      <small className="muted">URL (POST JSON to it)</small>
      <div className="secret-row">
        <code data-testid="endpoint-url">{url}</code>
        <CopyButton value={url} label="Copy URL" />
      </div>
      <small className="muted">Signing secret {verification === 'none' ? '(not used while verification is none)' : `(${VERIFICATIONS[verification]})`}</small>
      <div className="secret-row">
        <code data-testid="endpoint-secret">{secret}</code>
        <CopyButton value={secret} label="Copy secret" />
      </div>
      <TestPayload credentials={credentials} agentId={agentId} />
      <button type="button" className="secondary" onClick={onDone}>
        Done
      </button>
    </article>
  );
}

/** The token is the URL's last path segment, the trigger id the one before it. */
function hookPath(url: string): { trigger_id: string; token: string } {
  const [triggerId = '', token = ''] = new URL(url).pathname.split('/').slice(-2);
  return { trigger_id: triggerId, token };
}

function TestPayload({ credentials, agentId }: { credentials: Credentials; agentId: string }) {
  const client = useQueryClient();
  const form = useForm<{ payload: string }>({ defaultValues: { payload: '{\n  "hello": "from the console"\n}' } });
  const signed = credentials.verification !== 'none';
  const possible = !signed || canSignHere();
  const send = useMutation({
    mutationFn: async (payload: string) => {
      const headers = await signedHeaders(credentials.verification, credentials.secret, payload);
      return unwrap(
        api.POST('/hooks/{trigger_id}/{token}', {
          params: { path: hookPath(credentials.url) },
          body: payload,
          // The exact bytes that were signed.
          bodySerializer: (body) => body as string,
          headers: { 'content-type': 'application/json', ...headers },
        }),
      );
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['runs', agentId] });
      void client.invalidateQueries({ queryKey: ['triggers', agentId] });
    },
  });
  const { errors } = form.formState;
  return (
    <form className="test-payload" onSubmit={form.handleSubmit((values) => send.mutate(values.payload))} noValidate>
      <label>
        Test payload (JSON)
        <textarea
          className="mono"
          rows={4}
          spellCheck={false}
          aria-invalid={errors.payload ? true : undefined}
          {...form.register('payload', {
            validate: (value) => {
              try {
                JSON.parse(value);
                return true;
              } catch (error) {
                return `Not JSON: ${(error as Error).message}`;
              }
            },
          })}
        />
        {errors.payload && <small className="error-note">{errors.payload.message}</small>}
        <small>
          {!signed
            ? 'Sent from this browser to this gateway, as is: with verification none the URL alone admits the call.'
            : possible
              ? 'Signed here in your browser with the secret above, as a sender must sign every call, then sent to this gateway.'
              : 'This page cannot sign (the browser offers Web Crypto only over HTTPS or on localhost): the sender must sign each call with the secret.'}
        </small>
      </label>
      <div className="row-actions">
        <button type="submit" className="secondary" disabled={!possible} aria-busy={send.isPending}>
          Send test payload
        </button>
        {send.data && (
          <span role="status">
            Accepted: <Link to={`/agents/${agentId}/runs/${send.data.run_id}`}>open the run it started</Link>
          </span>
        )}
      </div>
      <ErrorNote error={send.error} />
    </form>
  );
}
