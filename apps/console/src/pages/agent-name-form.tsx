import type { Schemas } from '@aas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { api, unwrap } from '../api';
import { ErrorNote } from '../components/feedback';

type Agent = Schemas['AgentDto'];
type AgentName = { name: string; explanation: string };

/** Renames an agent (PATCH agent_name); a later build run may name it again. */
export function AgentNameForm({ agent, onDone }: { agent: Agent; onDone: () => void }) {
  const client = useQueryClient();
  const current = agent.agent_name as { name?: string; explanation?: string | null } | null | undefined;
  const form = useForm<AgentName>({ defaultValues: { name: current?.name ?? '', explanation: current?.explanation ?? '' } });
  const rename = useMutation({
    mutationFn: (values: AgentName) =>
      unwrap(
        api.PATCH('/v1/agents/{agent_id}', {
          params: { path: { agent_id: agent.agent_id } },
          body: { agent_name: { name: values.name.trim(), explanation: values.explanation.trim() || null } },
        }),
      ),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['agent', agent.agent_id] });
      void client.invalidateQueries({ queryKey: ['agents'] });
      onDone();
    },
  });
  const nameError = form.formState.errors.name;
  return (
    <form className="agent-name-form" onSubmit={form.handleSubmit((values) => rename.mutate(values))} noValidate>
      <label htmlFor="agent-name">Name</label>
      <input id="agent-name" aria-invalid={nameError ? true : undefined} aria-describedby="agent-name-help" {...form.register('name', { validate: (v) => v.trim().length > 0 && v.trim().length <= 200 })} />
      <small id="agent-name-help">{nameError ? 'A name of 1 to 200 characters.' : 'What people call this agent.'}</small>
      <label htmlFor="agent-explanation">What it does (optional)</label>
      <textarea id="agent-explanation" rows={2} {...form.register('explanation')} />
      <ErrorNote error={rename.error} />
      <div className="row-actions">
        <button type="submit" aria-busy={rename.isPending}>
          Save the name
        </button>
        <button type="button" className="secondary outline" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
