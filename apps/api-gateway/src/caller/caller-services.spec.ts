import { RunsPatterns } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { Caller } from './caller';
import { CallerServices } from './caller-services';

class RecordingServiceClient {
  readonly sent: Array<{ how: string; pattern: string; payload: unknown; requestId?: string }> = [];
  request(pattern: string, payload: unknown, requestId?: string): Promise<unknown> {
    this.sent.push({ how: 'request', pattern, payload, requestId });
    return Promise.resolve({ run: { run_id: 'r' } });
  }
  requestJson(pattern: string, payload: unknown, requestId?: string): Promise<string> {
    this.sent.push({ how: 'requestJson', pattern, payload, requestId });
    return Promise.resolve('{"run":{"run_id":"r"}}');
  }
}

describe(CallerServices.name, () => {
  const caller: Caller = { userId: 'user-1', requestId: 'req-1', sessionId: undefined };

  it("sends the caller's user in the message and its request id along, with either answer form", async () => {
    const client = new RecordingServiceClient();
    const services = new CallerServices(client as unknown as ServiceClient);
    await services.request(caller, RunsPatterns.GetRun, { agent_id: 'a', run_id: 'r' });
    await services.requestJson(caller, RunsPatterns.GetRun, { agent_id: 'a', run_id: 'r' });
    const sent = { pattern: RunsPatterns.GetRun, payload: { agent_id: 'a', run_id: 'r', user_id: 'user-1' }, requestId: 'req-1' };
    expect(client.sent).toEqual([
      { how: 'request', ...sent },
      { how: 'requestJson', ...sent },
    ]);
  });

  it('lets no message name another user: the caller\'s id wins over one smuggled in', async () => {
    const client = new RecordingServiceClient();
    const services = new CallerServices(client as unknown as ServiceClient);
    const smuggled = { agent_id: 'a', run_id: 'r', user_id: 'user-2' };
    await services.request(caller, RunsPatterns.GetRun, smuggled);
    expect(client.sent[0].payload).toMatchObject({ user_id: 'user-1' });
  });
});
