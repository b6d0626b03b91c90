import type { Schemas } from '@aas/sdk';
import { type UseQueryResult, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { api, unwrap } from '../api';
import { ErrorNote, Loading } from '../components/feedback';
import { ConfirmButton } from '../components/confirm-button';

type Workspace = Schemas['WorkspaceDto'];

/** The workspaces (folders of agents): pick one, create, rename, reorder, delete. */
export function WorkspacesPanel({
  workspaces,
  selected,
  onSelect,
}: {
  workspaces: UseQueryResult<Schemas['WorkspaceListResponse']>;
  selected: string | undefined;
  onSelect: (id: string | undefined) => void;
}) {
  const client = useQueryClient();
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['workspaces'] });
    void client.invalidateQueries({ queryKey: ['agents'] });
  };
  const form = useForm<{ name: string }>({ defaultValues: { name: '' } });
  const create = useMutation({
    mutationFn: (name: string) => unwrap(api.POST('/v1/workspaces', { body: { name } })),
    onSuccess: () => {
      form.reset();
      refresh();
    },
  });
  const reorder = useMutation({
    mutationFn: (ids: string[]) => unwrap(api.POST('/v1/workspaces/reorder', { body: { workspace_ids: ids } })),
    onSettled: refresh,
  });
  const list = workspaces.data?.workspaces ?? [];
  const moveBy = (index: number, by: number) => {
    const ids = list.map((w) => w.workspace_id);
    const [id] = ids.splice(index, 1);
    ids.splice(index + by, 0, id);
    reorder.mutate(ids);
  };
  return (
    <aside className="workspaces" aria-label="Workspaces">
      <h3>Workspaces</h3>
      {workspaces.isPending ? (
        <Loading what="workspaces" />
      ) : workspaces.isError ? (
        <ErrorNote error={workspaces.error} />
      ) : (
        <ul className="workspace-list">
          <li>
            <button type="button" className={selected ? 'secondary outline' : 'secondary'} onClick={() => onSelect(undefined)}>
              All agents
            </button>
          </li>
          {list.map((w, index) => (
            <WorkspaceItem
              key={w.workspace_id}
              workspace={w}
              selected={selected === w.workspace_id}
              onSelect={() => onSelect(w.workspace_id)}
              onUp={index > 0 ? () => moveBy(index, -1) : undefined}
              onDown={index < list.length - 1 ? () => moveBy(index, 1) : undefined}
              onChanged={refresh}
              onDeleted={() => {
                if (selected === w.workspace_id) onSelect(undefined);
                refresh();
              }}
            />
          ))}
        </ul>
      )}
      <form className="inline-form" onSubmit={form.handleSubmit((values) => create.mutate(values.name))}>
        <input placeholder="New workspace" aria-label="New workspace name" {...form.register('name', { required: true, maxLength: 128 })} />
        <button type="submit" className="secondary" aria-busy={create.isPending}>
          Add
        </button>
      </form>
      <ErrorNote error={create.error ?? reorder.error} />
    </aside>
  );
}

function WorkspaceItem(props: {
  workspace: Workspace;
  selected: boolean;
  onSelect: () => void;
  onUp?: () => void;
  onDown?: () => void;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const { workspace } = props;
  const [renaming, setRenaming] = useState(false);
  const form = useForm<{ name: string }>({ values: { name: workspace.name } });
  const rename = useMutation({
    mutationFn: (name: string) => unwrap(api.PUT('/v1/workspaces/{workspace_id}', { params: { path: { workspace_id: workspace.workspace_id } }, body: { name } })),
    onSuccess: () => {
      setRenaming(false);
      props.onChanged();
    },
  });
  const remove = useMutation({
    mutationFn: async () => {
      const result = await unwrap(api.DELETE('/v1/workspaces/{workspace_id}', { params: { path: { workspace_id: workspace.workspace_id } } }));
      if (!result.deleted) throw new Error(result.error ?? 'The workspace was not deleted');
    },
    onSuccess: props.onDeleted,
  });
  if (renaming) {
    return (
      <li>
        <form className="inline-form" onSubmit={form.handleSubmit((values) => rename.mutate(values.name))}>
          <input aria-label="Workspace name" autoFocus {...form.register('name', { required: true, maxLength: 128 })} />
          <button type="submit" className="small" aria-busy={rename.isPending}>
            Save
          </button>
          <button type="button" className="secondary outline small" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
        <ErrorNote error={rename.error} />
      </li>
    );
  }
  return (
    <li className="workspace-item">
      <button type="button" className={props.selected ? 'secondary' : 'secondary outline'} onClick={props.onSelect}>
        {workspace.name} <span className="count">{workspace.agent_count}</span>
      </button>
      <span className="workspace-actions">
        <button type="button" className="icon" aria-label={`Move ${workspace.name} up`} disabled={!props.onUp} onClick={props.onUp}>
          ↑
        </button>
        <button type="button" className="icon" aria-label={`Move ${workspace.name} down`} disabled={!props.onDown} onClick={props.onDown}>
          ↓
        </button>
        <button type="button" className="icon" aria-label={`Rename ${workspace.name}`} onClick={() => setRenaming(true)}>
          ✎
        </button>
        <ConfirmButton
          className="icon"
          label={`Delete ${workspace.name}`}
          title={`Delete the workspace ${workspace.name}?`}
          message={
            <p>
              {workspace.agent_count === 0
                ? 'It has no agents.'
                : workspace.agent_count === 1
                  ? 'Its agent, with its runs, schedule, triggers and webhooks, is deleted with it. This cannot be undone.'
                  : `Its ${workspace.agent_count} agents, with their runs, schedules, triggers and webhooks, are deleted with it. This cannot be undone.`}
            </p>
          }
          confirmLabel={workspace.agent_count === 0 ? 'Delete workspace' : 'Delete workspace and agents'}
          typed={workspace.agent_count === 0 ? undefined : workspace.name}
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
        >
          ×
        </ConfirmButton>
      </span>
      <ErrorNote error={remove.error} />
    </li>
  );
}
