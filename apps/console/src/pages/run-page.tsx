import { type RunEvent, streamRunEvents } from '@aas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, problemDetail, unwrap } from '../api';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { usePageTitle } from '../components/page-title';
import { agentLabel } from './agents-page';
import { runFacts } from './run-facts';
import { runKind } from './runs-tab';
import { ConfirmButton } from '../components/confirm-button';

type StreamState = 'connecting' | 'live' | 'ended' | 'reconnecting';

/**
 * A run's events as they are recorded, over the API's Server-Sent Events stream; a
 * stream that drops is resumed after the last event seen (Last-Event-ID).
 */
function useLiveEvents(agentId: string, runId: string, onEnd: () => void) {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [state, setState] = useState<StreamState>('connecting');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    let last: number | undefined;
    const run = async () => {
      for (let attempt = 0; !abort.signal.aborted; attempt++) {
        try {
          for await (const message of streamRunEvents(api, agentId, runId, { lastEventIndex: last, signal: abort.signal })) {
            if (message.kind === 'end') {
              setState('ended');
              onEnd();
              return;
            }
            setState('live');
            setError(null);
            last = message.event.event_index;
            setEvents((seen) => [...seen, message.event]);
          }
        } catch (failure) {
          if (abort.signal.aborted) return;
          setError(problemDetail(failure));
          if (failure instanceof Error && 'status' in failure && (failure as { status: number }).status < 500) return;
        }
        setState('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 500 * 2 ** Math.min(attempt, 5))));
      }
    };
    setEvents([]);
    void run();
    return () => abort.abort();
    // onEnd is a refetch: the stream restarts only for another run.
  }, [agentId, runId]);
  return { events, state, error };
}

export function RunPage() {
  const { agentId = '', runId = '' } = useParams();
  const client = useQueryClient();
  const navigate = useNavigate();
  const path = { params: { path: { agent_id: agentId, run_id: runId } } };
  const run = useQuery({ queryKey: ['run', agentId, runId], queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/runs/{run_id}', path)) });
  const live = useLiveEvents(agentId, runId, () => {
    void client.invalidateQueries({ queryKey: ['run', agentId, runId] });
    void client.invalidateQueries({ queryKey: ['agent', agentId] });
  });
  const cancel = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/agents/{agent_id}/runs/{run_id}/cancel', { ...path, body: { reason: 'cancelled in the console' } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ['run', agentId, runId] }),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/v1/agents/{agent_id}/runs/{run_id}', path)),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['runs', agentId] });
      void navigate(`/agents/${agentId}`, { replace: true });
    },
  });
  const agent = useQuery({ queryKey: ['agent', agentId], queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}', { params: { path: { agent_id: agentId } } })) });
  usePageTitle(`Run ${run.data?.run.run_number ?? ''} · ${agent.data ? agentLabel(agent.data.agent) : 'Agent'}`);
  if (run.isPending) return <Loading what="the run" />;
  if (run.isError) return <ErrorNote error={run.error} />;
  const r = run.data.run;
  const facts = runFacts(live.events);
  const usage = r.usage;
  return (
    <section>
      <p className="crumbs">
        <Link to="/agents">Agents</Link> / <Link to={`/agents/${agentId}`}>{agent.data ? agentLabel(agent.data.agent) : 'Agent'}</Link> /
      </p>
      <div className="section-head">
        <h1>
          Run {r.run_number}
          {facts.title && <span className="muted"> · {facts.title}</span>}
        </h1>
        <StatusBadge status={r.status} />
        <span className="spacer" />
        {!r.is_finished && (
          <ConfirmButton
            className="secondary"
            title={`Cancel run ${r.run_number}?`}
            message={<p>The agent is stopped where it is; what it did so far stays in the events.</p>}
            confirmLabel="Cancel the run"
            dismissLabel="Keep it running"
            busy={cancel.isPending}
            onConfirm={() => cancel.mutate()}
          >
            Cancel run
          </ConfirmButton>
        )}
        <ConfirmButton title={`Delete run ${r.run_number}?`} message={<p>The run and its events are deleted.</p>} confirmLabel="Delete run" busy={remove.isPending} onConfirm={() => remove.mutate()}>
          Delete
        </ConfirmButton>
      </div>
      <ErrorNote error={cancel.error ?? remove.error} />
      {cancel.data?.error && <p className="muted">{cancel.data.error}</p>}
      <dl className="facts">
        <dt>Goal</dt>
        <dd>{r.goal || '—'}</dd>
        <dt>Kind</dt>
        <dd>{runKind(r)}</dd>
        {r.trigger_id && (
          <>
            <dt>Trigger</dt>
            <dd>
              <Link to={`/agents/${agentId}/triggers`}>
                <code>{r.trigger_id}</code>
              </Link>
            </dd>
          </>
        )}
        <dt>Started</dt>
        <dd>
          <When at={r.started_at} />
        </dd>
        <dt>Finished</dt>
        <dd>{r.finished_at ? <When at={r.finished_at} /> : 'not yet'}</dd>
        <dt>Steps</dt>
        <dd data-testid="run-steps">{Math.max(r.step_count, facts.steps)}</dd>
        {facts.tools.length > 0 && (
          <>
            <dt>Tools</dt>
            <dd>
              {facts.tools.map((tool) => (
                <code key={tool} className="tool-name">
                  {tool}
                </code>
              ))}
            </dd>
          </>
        )}
        {r.policy_model && (
          <>
            <dt>Model</dt>
            <dd>
              <code>{r.policy_model}</code>
            </dd>
          </>
        )}
        {usage && usage.model_calls > 0 && (
          <>
            <dt>Usage</dt>
            <dd data-testid="run-usage">
              {usage.input_tokens.toLocaleString()} tokens in, {usage.output_tokens.toLocaleString()} out, {usage.model_calls} model call
              {usage.model_calls === 1 ? '' : 's'}
              {r.credits_consumed !== null && r.credits_consumed !== undefined && <> · {r.credits_consumed.toLocaleString()} credits</>}
            </dd>
          </>
        )}
        {facts.outcome && (
          <>
            <dt>Outcome</dt>
            <dd>
              <StatusBadge status={facts.outcome} /> {facts.summary}
            </dd>
          </>
        )}
      </dl>
      <h3>
        Events <span className={`stream-state stream-${live.state}`} data-testid="stream-state">{live.state}</span>
      </h3>
      {live.error && <p className="error-note" role="alert">{live.error}</p>}
      {live.events.length === 0 ? (
        live.state === 'connecting' ? <Loading what="events" /> : <Empty>No events yet.</Empty>
      ) : (
        <ol className="events" aria-label="Run events">
          {live.events.map((event) => {
            const [type, body] = Object.entries(event.event as Record<string, unknown>)[0] ?? ['event', {}];
            return (
              <li key={event.event_index} data-event-index={event.event_index}>
                <span className="event-index">{event.event_index}</span>
                <strong className="event-type">{type}</strong>
                <When at={event.recorded_at} />
                {typeof body === 'object' && body !== null && Object.keys(body).length > 0 ? <pre>{JSON.stringify(body, null, 2)}</pre> : null}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
