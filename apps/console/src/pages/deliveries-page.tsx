import type { Schemas } from '@aas/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { Pager } from '../components/pager';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { usePageTitle } from '../components/page-title';

type Delivery = Schemas['DeliveryDto'];
const PAGE_SIZE = 20;

/** A webhook's delivery log, newest first: each delivery with its attempts, and redeliver. */
export function DeliveriesPage() {
  usePageTitle('Deliveries');
  const { agentId = '', webhookId = '' } = useParams();
  const [page, setPage] = useState(1);
  const path = { agent_id: agentId, webhook_id: webhookId };
  const webhook = useQuery({
    queryKey: ['webhook', agentId, webhookId],
    queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/webhooks/{webhook_id}', { params: { path } })),
  });
  const deliveries = useQuery({
    queryKey: ['deliveries', agentId, webhookId, page],
    queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/webhooks/{webhook_id}/deliveries', { params: { path, query: { page, page_size: PAGE_SIZE } } })),
    placeholderData: keepPreviousData,
    refetchInterval: 3000,
  });
  return (
    <section>
      <p className="crumbs">
        <Link to="/agents">Agents</Link> / <Link to={`/agents/${agentId}/webhooks`}>Webhooks</Link> /
      </p>
      <h1>Deliveries</h1>
      {webhook.data && (
        <p className="muted">
          <code>{webhook.data.url}</code> · {webhook.data.events.join(', ')}
        </p>
      )}
      <ErrorNote error={webhook.error} />
      {deliveries.isPending ? (
        <Loading what="deliveries" />
      ) : deliveries.isError ? (
        <ErrorNote error={deliveries.error} />
      ) : deliveries.data.deliveries.length === 0 ? (
        <Empty>Nothing delivered yet. Deliveries appear here when the agent's runs start, finish or fail.</Empty>
      ) : (
        <>
          <ul className="cards" aria-label="Deliveries">
            {deliveries.data.deliveries.map((delivery) => (
              <DeliveryCard key={delivery.delivery_id} delivery={delivery} agentId={agentId} webhookId={webhookId} />
            ))}
          </ul>
          <Pager page={page} pageSize={PAGE_SIZE} total={deliveries.data.total} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function DeliveryCard({ delivery, agentId, webhookId }: { delivery: Delivery; agentId: string; webhookId: string }) {
  const client = useQueryClient();
  const redeliver = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v1/agents/{agent_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
          params: { path: { agent_id: agentId, webhook_id: webhookId, delivery_id: delivery.delivery_id } },
        }),
      ),
    onSettled: () => void client.invalidateQueries({ queryKey: ['deliveries', agentId, webhookId] }),
  });
  return (
    <li data-testid="delivery">
      <article>
        <div className="section-head">
          <strong>{delivery.event}</strong>
          <StatusBadge status={delivery.status} />
          <span className="muted">
            <When at={delivery.created_at} />
          </span>
          <span className="spacer" />
          <button type="button" className="secondary outline small" onClick={() => redeliver.mutate()} aria-busy={redeliver.isPending}>
            Redeliver
          </button>
        </div>
        {delivery.next_attempt_at && (
          <p className="muted">
            Next attempt <When at={delivery.next_attempt_at} />
          </p>
        )}
        <ErrorNote error={redeliver.error} />
        {delivery.attempts.length === 0 ? (
          <p className="muted">No attempt yet.</p>
        ) : (
          <ol className="attempts">
            {delivery.attempts.map((attempt) => (
              <li key={attempt.attempt}>
                Attempt {attempt.attempt}: {attempt.status_code ?? 'no answer'} in {attempt.duration_ms} ms, <When at={attempt.started_at} />
                {attempt.error && <span className="error-note"> — {attempt.error}</span>}
              </li>
            ))}
          </ol>
        )}
        <details>
          <summary>Payload</summary>
          <pre>{JSON.stringify(delivery.payload, null, 2)}</pre>
        </details>
      </article>
    </li>
  );
}
