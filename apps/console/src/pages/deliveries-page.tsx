import type { Schemas } from '@aas/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { Pager } from '../components/pager';
import { usePageTitle } from '../components/page-title';
import { DeliveryActions } from './delivery-actions';
import { DeliveryCard } from './delivery-card';
import { WebhookHealth } from './webhook-health';

type DeliveryStatus = Schemas['DeliveryDto']['status'];
export const DELIVERY_STATUSES: DeliveryStatus[] = ['failed', 'pending', 'succeeded', 'cancelled'];
const PAGE_SIZE = 20;

/** A webhook's delivery log, newest first: each attempt's request and response, filters, a test event, redelivery. */
export function DeliveriesPage() {
  usePageTitle('Deliveries');
  const { agentId = '', webhookId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const status = DELIVERY_STATUSES.find((s) => s === params.get('status'));
  const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
  const pageSize = PAGE_SIZE;
  const path = { agent_id: agentId, webhook_id: webhookId };
  const webhook = useQuery({
    queryKey: ['webhook', agentId, webhookId],
    queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/webhooks/{webhook_id}', { params: { path } })),
    refetchInterval: 5000,
  });
  const deliveries = useQuery({
    queryKey: ['deliveries', agentId, webhookId, page, status],
    queryFn: () =>
      unwrap(api.GET('/v1/agents/{agent_id}/webhooks/{webhook_id}/deliveries', { params: { path, query: { page, page_size: pageSize, filter_status: status } } })),
    placeholderData: keepPreviousData,
    refetchInterval: 3000,
  });
  const setParam = (name: string, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    if (name !== 'page') next.delete('page');
    setParams(next);
  };
  const shown = deliveries.data?.deliveries ?? [];
  return (
    <section>
      <p className="crumbs">
        <Link to="/agents">Agents</Link> / <Link to={`/agents/${agentId}/webhooks`}>Webhooks</Link> /
      </p>
      <h1>Deliveries</h1>
      {webhook.data && (
        <>
          <p className="muted">
            <code>{webhook.data.url}</code> · {webhook.data.events.join(', ')}
          </p>
          <WebhookHealth webhook={webhook.data} />
          <DeliveryActions webhook={webhook.data} />
        </>
      )}
      <ErrorNote error={webhook.error} />
      <div className="section-head">
        <h2>Log</h2>
        <label className="inline-label">
          Status
          <select data-search value={status ?? ''} onChange={(event) => setParam('status', event.target.value || undefined)}>
            <option value="">any</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      {deliveries.isPending ? (
        <Loading what="deliveries" />
      ) : deliveries.isError ? (
        <ErrorNote error={deliveries.error} />
      ) : (
        <>
          {status && (
            <p className="muted small-print" data-testid="filter-scope">
              {deliveries.data.total} {status} {deliveries.data.total === 1 ? 'delivery' : 'deliveries'} in all.
            </p>
          )}
          {shown.length === 0 ? (
            <Empty>{status ? `No ${status} delivery here.` : "Nothing delivered yet. Deliveries appear here when the agent's runs start, finish or fail, or when you send a test event."}</Empty>
          ) : (
            <ul className="cards" aria-label="Deliveries">
              {shown.map((delivery) => (
                <DeliveryCard key={delivery.delivery_id} delivery={delivery} agentId={agentId} webhookId={webhookId} />
              ))}
            </ul>
          )}
          <Pager page={page} pageSize={pageSize} total={deliveries.data.total} onPage={(p) => setParam('page', String(p))} />
        </>
      )}
    </section>
  );
}
