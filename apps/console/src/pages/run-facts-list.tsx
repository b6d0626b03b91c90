import type { Schemas } from '@aas/sdk';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { RunDuration } from './run-duration-cell';
import type { RunFacts } from './run-facts';
import { STARTED_BY } from './run-filters';
import { runKind } from './runs-tab';

type Run = Schemas['RunDto'];

/** What started the run, linked to it: the schedule's tab, or the agent's triggers with the trigger's id. */
function StartedBy({ run }: { run: Run }) {
  const by = STARTED_BY[run.run_kind ?? ''] ?? run.run_kind ?? 'unknown';
  if (run.run_kind === 'schedule') return <Link to={`/agents/${run.schedule_agent_id ?? run.agent_id}/schedule`}>{by}</Link>;
  if (!run.trigger_id) return <>{by}</>;
  return (
    <>
      {by}:{' '}
      <Link to={`/agents/${run.agent_id}/triggers`}>
        <code>{run.trigger_id}</code>
      </Link>
    </>
  );
}

const Fact = ({ term, children, testId }: { term: string; children: ReactNode; testId?: string }) => (
  <>
    <dt>{term}</dt>
    <dd data-testid={testId}>{children}</dd>
  </>
);

/** The run's facts: the fetched run, with what its live events said since (steps, tools, tokens). */
export function RunFactsList({ run, facts }: { run: Run; facts: RunFacts }) {
  const usage = facts.usage.model_calls > run.usage.model_calls ? facts.usage : run.usage;
  return (
    <dl className="facts">
      <Fact term="Goal">{run.goal || '—'}</Fact>
      <Fact term="Kind">{runKind(run)}</Fact>
      <Fact term="Started by" testId="run-started-by">
        <StartedBy run={run} />
      </Fact>
      <Fact term="Started">
        <When at={run.started_at} />
      </Fact>
      <Fact term="Finished">{run.finished_at ? <When at={run.finished_at} /> : 'not yet'}</Fact>
      <Fact term="Duration">
        <RunDuration run={run} />
      </Fact>
      <Fact term="Steps" testId="run-steps">
        {Math.max(run.step_count, facts.steps)}
      </Fact>
      {facts.tools.length > 0 && (
        <Fact term="Tools">
          {facts.tools.map((tool) => (
            <code key={tool} className="tool-name">
              {tool}
            </code>
          ))}
        </Fact>
      )}
      <Fact term="Related runs" testId="run-related">
        <Link to={`/runs?filter_replay_of=${run.run_id}`}>its replays</Link> ·{' '}
        <Link to={`/runs?filter_source_run_id=${run.run_id}`}>runs its end started</Link>
        {run.source_run_id && (
          <>
            {' '}
            · started by the end of <Link to={`/runs?filter_run_id=${run.source_run_id}`}>run <code>{run.source_run_id}</code></Link>
          </>
        )}
      </Fact>
      {run.replay_of && (
        <Fact term="Replay of" testId="run-replay-of">
          <Link to={`/agents/${run.agent_id}/runs/${run.replay_of}`}>
            <code>{run.replay_of}</code>
          </Link>
        </Fact>
      )}
      {run.instructions_version_id !== null && run.instructions_version_id !== undefined && (
        <Fact term="Instructions" testId="run-instructions-version">
          <Link to={`/agents/${run.agent_id}/instructions`}>version {run.instructions_version_id}</Link>
        </Fact>
      )}
      {run.policy_model && (
        <Fact term="Model">
          <code>{run.policy_model}</code>
        </Fact>
      )}
      {usage.model_calls > 0 && (
        <Fact term="Usage and credits" testId="run-usage">
          {usage.input_tokens.toLocaleString()} tokens in, {usage.output_tokens.toLocaleString()} out, {usage.model_calls} model call{usage.model_calls === 1 ? '' : 's'}
          {run.credits_consumed !== null && run.credits_consumed !== undefined && <> · {run.credits_consumed.toLocaleString()} credits</>}
        </Fact>
      )}
      {facts.outcome && (
        <Fact term="Outcome">
          <StatusBadge status={facts.outcome} /> {facts.summary}
        </Fact>
      )}
    </dl>
  );
}
