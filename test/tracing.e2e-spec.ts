import { AgentsPatterns } from '@aas/contracts';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http } from './support/http';
import { ProcessSystem } from './support/process-system';

const KEY = 'tracing-bootstrap-key-0123456789';

interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/** An OTLP/HTTP (JSON) trace receiver: what the exporter of every app posts to /v1/traces. */
class OtlpReceiver {
  readonly spans: ExportedSpan[] = [];
  /** Every payload as it arrived, to look for what no span may carry. */
  exported = '';
  private readonly server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        this.exported += body;
        this.collect(JSON.parse(body));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private collect(payload: { resourceSpans?: any[] }): void {
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const service = resourceSpans.resource?.attributes?.find((a: any) => a.key === 'service.name')?.value?.stringValue;
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({ service, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId, name: span.name });
        }
      }
    }
  }
}

/** OpenTelemetry, switched on by the standard OTLP endpoint variable: one API request is one trace across apps. */
describe('Tracing', () => {
  let system: ProcessSystem;
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    receiver = new OtlpReceiver();
    const endpoint = await receiver.start();
    system = await ProcessSystem.start({
      replicas: { 'runs-service': 0, 'scheduler-service': 0, 'webhook-delivery': 0 },
      env: { BOOTSTRAP_API_KEY: KEY, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' },
    });
  }, 180_000); // starting many processes on a busy 2-core machine can take a while
  afterAll(async () => {
    await system?.stop();
    await receiver?.close();
  });

  it('follows a request from the gateway through the transport into agents-service and its database', async () => {
    const created = await http(system.gatewayUrls()[0], 'POST', '/v1/agents', { key: KEY, body: {} });
    expect(created.status).toBe(201);

    let handled: ExportedSpan | undefined;
    for (let waited = 0; waited < 10_000 && !handled; waited += 100) {
      handled = receiver.spans.find((s) => s.service === 'agents-service' && s.name === AgentsPatterns.CreateAgent);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(handled).toBeDefined();
    const trace = receiver.spans.filter((s) => s.traceId === handled!.traceId);
    const gatewaySpans = trace.filter((s) => s.service === 'api-gateway');
    // The service's span is a child of a gateway span: the context crossed Redis.
    expect(gatewaySpans.map((s) => s.spanId)).toContain(handled!.parentSpanId);
    expect(gatewaySpans.some((s) => s.name.startsWith('POST'))).toBe(true);
    // And the insert it made is in the same trace.
    expect(trace.some((s) => s.service === 'agents-service' && /INSERT|pg\.query/i.test(s.name))).toBe(true);
  });

  it("carries an inbound URL's path without its token", async () => {
    const token = 'c3Bhbi1hdHRyaWJ1dGVzLW11c3QtbmV2ZXItY2FycnktdGhpcw';
    const triggerId = '0b8f6a52-3c1d-4e5f-8a9b-0c1d2e3f4a5b';
    // No GET route: answered 404 at once, and traced like any request.
    expect((await http(system.gatewayUrls()[0], 'GET', `/hooks/${triggerId}/${token}`)).status).toBe(404);
    for (let waited = 0; waited < 10_000 && !receiver.exported.includes(`/hooks/${triggerId}/`); waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(receiver.exported).toContain(`/hooks/${triggerId}/[redacted]`);
    expect(receiver.exported).not.toContain(token);
  });

  it('is off without an endpoint: nothing is exported', async () => {
    const quiet = await system.spawn('api-gateway', { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_SERVICE_NAME: 'quiet-gateway' });
    await system.waitHealthy(quiet);
    await http(`http://127.0.0.1:${quiet.port}`, 'GET', '/v1/me', { key: KEY });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.spans.some((s) => s.service === 'quiet-gateway')).toBe(false);
  });
});
