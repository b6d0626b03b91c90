import type { Schemas } from '@aas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { api, unwrap } from '../api';
import { SecretOnce } from '../components/copy-button';
import { DataTable } from '../components/data-table';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { When } from '../components/time';
import { usePageTitle } from '../components/page-title';
import { ConfirmButton } from '../components/confirm-button';

type Key = Schemas['ApiKeyInfo'];
const column = createColumnHelper<Key>();

/** Settings → API keys: where a user's first key comes from. */
export function ApiKeysPage() {
  usePageTitle('API keys');
  const client = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => unwrap(api.GET('/api/public/v1/access-api-keys')) });
  const [created, setCreated] = useState<Schemas['CreatedApiKey'] | null>(null);
  const form = useForm<{ name: string }>({ defaultValues: { name: '' } });
  const create = useMutation({
    mutationFn: (name: string) => unwrap(api.POST('/api/public/v1/access-api-keys', { body: { name } })),
    onSuccess: (key) => {
      setCreated(key);
      form.reset();
      void client.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) => unwrap(api.DELETE('/api/public/v1/access-api-keys/{key_id}', { params: { path: { key_id: keyId } } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const columns = [
    column.accessor('name', { header: 'Name' }),
    column.accessor('display_prefix', { header: 'Key', cell: (c) => <code>{c.getValue()}…</code> }),
    column.accessor('created_at', { header: 'Created', cell: (c) => <When at={c.getValue()} /> }),
    column.accessor('last_used_at', { header: 'Last used', cell: (c) => (c.getValue() ? <When at={c.getValue()} /> : <span className="muted">never</span>) }),
    column.display({
      id: 'revoke',
      header: '',
      cell: (c) => (
        <ConfirmButton
          className="secondary outline small"
          label={`Revoke ${c.row.original.name}`}
          title={`Revoke the key "${c.row.original.name}"?`}
          message={<p>Programs using it stop working at once.</p>}
          confirmLabel="Revoke key"
          onConfirm={() => revoke.mutate(c.row.original.key_id)}
        >
          Revoke
        </ConfirmButton>
      ),
    }),
  ];
  return (
    <section>
      <hgroup>
        <h1>API keys</h1>
        <p>Programs call the API with a key in the <code>x-api-key</code> header. A key is shown once, when it is created.</p>
      </hgroup>
      {created && <SecretOnce label={`API key "${created.name}"`} value={created.api_key} onDone={() => setCreated(null)} />}
      <form className="inline-form" onSubmit={form.handleSubmit((values) => create.mutate(values.name))}>
        <input placeholder="Name of the new key, e.g. ci-pipeline" aria-label="Key name" {...form.register('name', { required: true, maxLength: 128 })} />
        <button type="submit" aria-busy={create.isPending}>
          Create key
        </button>
      </form>
      <ErrorNote error={create.error ?? revoke.error} />
      {keys.isPending ? (
        <Loading what="keys" />
      ) : keys.isError ? (
        <ErrorNote error={keys.error} />
      ) : keys.data.keys.length === 0 ? (
        <Empty>No keys yet. Create one above to call the API from a program.</Empty>
      ) : (
        <DataTable label="API keys" columns={columns} data={keys.data.keys} rowId={(k) => k.key_id} />
      )}
    </section>
  );
}
