import { useEffect, useState } from 'react';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { LongText, readable } from './long-text';
import { durationText } from './run-duration';
import type { TimelineEntry, TimelineStep, ToolCallEntry } from './run-timeline';

/** Now, every second while some step goes on (its duration counts up). */
function useTickingNow(ticking: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

/** The run's steps, each with its status, duration and what happened in it. */
export function RunTimeline({ steps }: { steps: TimelineStep[] }) {
  const now = useTickingNow(steps.some((s) => s.endedAt === null));
  return (
    <ol className="timeline" aria-label="Timeline">
      {steps.map((step) => (
        <li key={step.startedAt + (step.number ?? 0)} className={`timeline-step step-${step.status}`} data-testid={step.number === null ? 'timeline-preamble' : 'timeline-step'}>
          <div className="step-head">
            <strong>{step.number === null ? step.title : `${step.number}. ${step.title}`}</strong>
            {step.number !== null && <StatusBadge status={step.status} />}
            <span className="muted duration">{durationText(step.startedAt, step.endedAt, now)}</span>
            <When at={step.startedAt} />
          </div>
          {step.entries.map((entry) => (
            <Entry key={entry.eventIndex} entry={entry} />
          ))}
        </li>
      ))}
    </ol>
  );
}

/** A line of a few plain values (a title, an outcome and summary) reads best inline. */
const isShort = (body: Record<string, unknown>) => Object.values(body).every((v) => ['string', 'number', 'boolean'].includes(typeof v)) && JSON.stringify(body).length <= 160;

function Entry({ entry }: { entry: TimelineEntry }) {
  switch (entry.kind) {
    case 'tool':
      return <ToolCall call={entry} />;
    case 'message':
      return <p className="timeline-message">{entry.text}</p>;
    case 'usage':
      return (
        <p className="muted timeline-usage">
          <code>{entry.model}</code>: {entry.inputTokens.toLocaleString()} tokens in, {entry.outputTokens.toLocaleString()} out
        </p>
      );
    case 'other':
      return (
        <div className="timeline-other">
          <span className="event-type">{entry.type.replace(/_/g, ' ')}</span>
          {isShort(entry.body) ? (
            <span> {Object.values(entry.body).join(' · ')}</span>
          ) : (
            <LongText label={entry.type} value={readable(entry.body)} />
          )}
        </div>
      );
  }
}

/** A tool call, collapsed to its name and result; open, its input and output. */
function ToolCall({ call }: { call: ToolCallEntry }) {
  const state = call.output === null ? 'running' : call.isError ? 'failed' : 'returned';
  return (
    <details className="tool-call" data-testid="tool-call">
      <summary>
        <code className="tool-name">{call.tool}</code> <span className={`tool-state tool-${state}`}>{state}</span>
      </summary>
      <h4>Input</h4>
      <LongText label={`${call.tool} input`} value={readable(call.input)} />
      <h4>Output{call.truncated ? ' (cut by the runtime)' : ''}</h4>
      {call.output === null ? <p className="muted">No result yet.</p> : <LongText label={`${call.tool} output`} value={readable(call.output)} />}
    </details>
  );
}
