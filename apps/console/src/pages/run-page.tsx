import type { RunEvent } from '@aas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../api';
import { ConfirmButton } from '../components/confirm-button';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { usePageTitle } from '../components/page-title';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { agentLabel } from './agents-page';
import { useFollowLatest } from './follow-latest';
import { runFacts } from './run-facts';
import { RunFactsList } from './run-facts-list';
import { ReplayButton } from './replay-button';
import { type StreamState, useLiveEvents } from './run-live-events';
import { runTimeline } from './run-timeline';
import { RunTimeline } from './run-timeline-view';

export function RunPage() {
  const { agentId = '', runId = '' } = useParams();
  const client = useQueryClient();
  const navigate = useNavigate();
  const path = { params: { path: { agent_id: agentId, run_id: runId } } };
  const run = useQuery({
    queryKey: ['run', agentId, runId],
    queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/runs/{run_id}', path)),
    // Credits are priced by the API: a run that goes on is fetched again for them.
    refetchInterval: (query) => (query.state.data?.run.is_finished ? false : 5000),
  });
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
  // A run still going when the page opened is followed to its end; a finished one is read from the top.
  const [followable, setFollowable] = useState<boolean | null>(null);
  useEffect(() => {
    if (run.data && followable === null) setFollowable(!run.data.run.is_finished);
  }, [run.data, followable]);
  const follow = useFollowLatest(live.events.length, followable === true);
  usePageTitle(`Run ${run.data?.run.run_number ?? ''} · ${agent.data ? agentLabel(agent.data.agent) : 'Agent'}`);
  if (run.isPending) return <Loading what="the run" />;
  if (run.isError) return <ErrorNote error={run.error} />;
  const r = run.data.run;
  const facts = runFacts(live.events);
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
        {r.is_finished && <ReplayButton run={r} />}
        <ConfirmButton title={`Delete run ${r.run_number}?`} message={<p>The run and its events are deleted.</p>} confirmLabel="Delete run" busy={remove.isPending} onConfirm={() => remove.mutate()}>
          Delete
        </ConfirmButton>
      </div>
      <ErrorNote error={cancel.error ?? remove.error} />
      {cancel.data?.error && <p className="muted">{cancel.data.error}</p>}
      <RunFactsList run={r} facts={facts} />
      <Events events={live.events} state={live.state} error={live.error} end={{ status: r.status, isFinished: r.is_finished, finishedAt: r.finished_at }} />
      {follow.unseen > 0 && (
        <button type="button" className="jump-to-latest" onClick={follow.jump}>
          {follow.unseen} new event{follow.unseen === 1 ? '' : 's'} — jump to latest
        </button>
      )}
    </section>
  );
}

/** The timeline, or the raw events as recorded (JSON) for developers. */
function Events({ events, state, error, end }: { events: RunEvent[]; state: StreamState; error: string | null; end: Parameters<typeof runTimeline>[1] }) {
  const [raw, setRaw] = useState(false);
  return (
    <>
      <div className="section-head">
        <h2>
          {raw ? 'Events' : 'Timeline'}{' '}
          <span className={`stream-state stream-${state}`} data-testid="stream-state">
            {state}
          </span>
        </h2>
        <span className="spacer" />
        <label className="raw-toggle">
          <input type="checkbox" role="switch" checked={raw} onChange={(e) => setRaw(e.target.checked)} />
          Raw events
        </label>
      </div>
      {error && (
        <p className="error-note" role="alert">
          {error}
        </p>
      )}
      {events.length === 0 ? (
        state === 'connecting' ? <Loading what="events" /> : <Empty>No events yet.</Empty>
      ) : raw ? (
        <RawEvents events={events} />
      ) : (
        <RunTimeline steps={runTimeline(events, end)} />
      )}
    </>
  );
}

function RawEvents({ events }: { events: RunEvent[] }) {
  return (
    <ol className="events" aria-label="Run events">
      {events.map((event) => {
        const [type, body] = Object.entries(event.event as Record<string, unknown>)[0] ?? ['event', {}];
        return (
          <li key={event.event_index} data-event-index={event.event_index}>
            <span className="event-index">{event.event_index}</span>
            <strong className="event-type">{type}</strong>
            <When at={event.recorded_at} />
            {typeof body === 'object' && body !== null && Object.keys(body).length > 0 ? <pre tabIndex={0}>{JSON.stringify(body, null, 2)}</pre> : null}
          </li>
        );
      })}
    </ol>
  );
}
