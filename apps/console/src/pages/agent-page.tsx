import type { Schemas } from '@aas/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, NavLink, Outlet, useOutletContext, useParams } from 'react-router';
import { api, unwrap } from '../api';
import { ErrorNote, Loading } from '../components/feedback';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { usePageTitle } from '../components/page-title';
import { AgentNameForm } from './agent-name-form';
import { agentLabel } from './agents-page';

type Agent = Schemas['AgentDto'];

/** One agent: its state, and tabs for runs, instructions, schedule, triggers and webhooks. */
export function AgentPage() {
  const { agentId = '' } = useParams();
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}', { params: { path: { agent_id: agentId } } })),
    // A build run deploys the agent: keep its state fresh while runs go on.
    refetchInterval: (query) => (query.state.data?.agent.latest_run_is_finished === false ? 2000 : false),
  });
  const [renaming, setRenaming] = useState(false);
  usePageTitle(agent.data ? agentLabel(agent.data.agent) : 'Agent');
  if (agent.isPending) return <Loading what="the agent" />;
  if (agent.isError) return <ErrorNote error={agent.error} />;
  const a = agent.data.agent;
  return (
    <section>
      <p className="crumbs">
        <Link to="/agents">Agents</Link> /
      </p>
      <div className="section-head">
        <h1>{agentLabel(a)}</h1>
        <StatusBadge status={a.deployment_state ?? 'not_deployed'} />
        <span className="spacer" />
        {!renaming && (
          <button type="button" className="secondary outline" onClick={() => setRenaming(true)}>
            Rename
          </button>
        )}
      </div>
      {renaming ? (
        <AgentNameForm agent={a} onDone={() => setRenaming(false)} />
      ) : (
        explanationOf(a) && <p className="agent-explanation">{explanationOf(a)}</p>
      )}
      <p className="muted small-print">
        <code>{a.agent_id}</code>
        {a.deployed_at && (
          <>
            {' '}
            · deployed <When at={a.deployed_at} />
          </>
        )}
      </p>
      <nav className="tabs" aria-label="Agent">
        <NavLink to="" end>
          Runs
        </NavLink>
        <NavLink to="instructions">Instructions</NavLink>
        <NavLink to="schedule">Schedule</NavLink>
        <NavLink to="triggers">Triggers</NavLink>
        <NavLink to="webhooks">Webhooks</NavLink>
      </nav>
      <Outlet context={a} />
    </section>
  );
}

export function useAgent(): Agent {
  return useOutletContext<Agent>();
}

function explanationOf(agent: Agent): string | null {
  return (agent.agent_name as { explanation?: string | null } | null | undefined)?.explanation ?? null;
}
