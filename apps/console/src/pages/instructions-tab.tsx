import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { diffLines } from 'diff';
import { useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { api, unwrap } from '../api';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { When } from '../components/time';
import { useAgent } from './agent-page';

/** The agent's instructions: edit (each save is a new version), the history, and a diff between two versions. */
export function InstructionsTab() {
  const agent = useAgent();
  const client = useQueryClient();
  const path = { params: { path: { agent_id: agent.agent_id } } };
  const current = useQuery({ queryKey: ['instructions', agent.agent_id], queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/instructions', path)) });
  const history = useQuery({
    queryKey: ['instruction-history', agent.agent_id],
    queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/instructions/history', { params: { path: { agent_id: agent.agent_id }, query: { limit: 50 } } })),
  });
  const form = useForm<{ content: string }>({ values: { content: current.data?.instructions?.content ?? '' } });
  const save = useMutation({
    mutationFn: async (content: string) => {
      const result = await unwrap(api.PUT('/v1/agents/{agent_id}/instructions', { ...path, body: { content } }));
      if (!result.success) throw new Error(result.error ?? 'The instructions were not saved');
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['instructions', agent.agent_id] });
      void client.invalidateQueries({ queryKey: ['instruction-history', agent.agent_id] });
    },
  });
  if (current.isPending) return <Loading what="instructions" />;
  if (current.isError) return <ErrorNote error={current.error} />;
  const versions = history.data?.instruction_versions ?? [];
  return (
    <div>
      <form onSubmit={form.handleSubmit((values) => save.mutate(values.content))}>
        <label>
          Instructions
          <textarea rows={12} className="mono" spellCheck={false} placeholder="What this agent does, step by step…" {...form.register('content')} />
        </label>
        <div className="row-actions">
          <button type="submit" disabled={!form.formState.isDirty} aria-busy={save.isPending}>
            Save as a new version
          </button>
          {save.isSuccess && !form.formState.isDirty && <span className="muted">Saved.</span>}
        </div>
        <ErrorNote error={save.error} />
      </form>
      <h3>History</h3>
      {history.isPending ? <Loading what="history" /> : history.isError ? <ErrorNote error={history.error} /> : versions.length === 0 ? <Empty>No versions yet.</Empty> : <VersionDiff versions={versions} />}
    </div>
  );
}

const withFinalNewline = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);

type Version = { id: number; content: string; created_at: string; source_type: string };

function VersionDiff({ versions }: { versions: Version[] }) {
  // Newest first: compare the newest with the one before it unless the user picks others.
  const [to, setTo] = useState(versions[0].id);
  const [from, setFrom] = useState(versions[1]?.id ?? versions[0].id);
  const a = versions.find((v) => v.id === from) ?? versions[0];
  const b = versions.find((v) => v.id === to) ?? versions[0];
  // Both end with a line break, so a last line that only gained one is not shown as changed.
  const parts = useMemo(() => diffLines(withFinalNewline(a.content), withFinalNewline(b.content)), [a, b]);
  const label = (v: Version) => `#${v.id} · ${v.source_type} · ${new Date(v.created_at).toLocaleString()}`;
  return (
    <div>
      <div className="grid">
        <label>
          From
          <select value={from} onChange={(e) => setFrom(Number(e.target.value))}>
            {versions.map((v) => (
              <option key={v.id} value={v.id}>
                {label(v)}
              </option>
            ))}
          </select>
        </label>
        <label>
          To
          <select value={to} onChange={(e) => setTo(Number(e.target.value))}>
            {versions.map((v) => (
              <option key={v.id} value={v.id}>
                {label(v)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <pre className="diff" aria-label="Differences between the versions">
        {parts.map((part, i) => (
          <span key={i} className={part.added ? 'diff-added' : part.removed ? 'diff-removed' : 'diff-same'}>
            {part.value
              .replace(/\n$/, '')
              .split('\n')
              .map((line) => `${part.added ? '+ ' : part.removed ? '- ' : '  '}${line}`)
              .join('\n')}
            {'\n'}
          </span>
        ))}
      </pre>
      <ul className="versions">
        {versions.map((v) => (
          <li key={v.id}>
            #{v.id} <span className="muted">{v.source_type}</span> <When at={v.created_at} />
          </li>
        ))}
      </ul>
    </div>
  );
}
