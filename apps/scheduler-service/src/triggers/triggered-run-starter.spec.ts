import { RunsPatterns, StartTriggeredRunsResponse, TriggeredRunStart } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ProblemCode, RemoteProblemError, problemFromCode } from '@aas/problem-details';
import { TriggeredRunStarter } from './triggered-run-starter';

function start(n: number): TriggeredRunStart {
  return {
    user_id: 'user-1',
    agent_id: '00000000-0000-4000-8000-000000000001',
    trigger_id: '00000000-0000-4000-a000-000000000001',
    trigger_kind: 'webhook',
    agent_generation: 1,
    delivery_key: `delivery:msg_${n}`,
    user_message: `call ${n}`,
    depth: 0,
    data: { payload: { n }, headers: {} },
  };
}

/** runs-service as the starter sees it: each request's starts answered in order, a refusal for "refuse". */
function runsService() {
  const requests: TriggeredRunStart[][] = [];
  let fail: Error | undefined;
  const services = {
    request: async (pattern: string, message: { starts: TriggeredRunStart[] }): Promise<StartTriggeredRunsResponse> => {
      expect(pattern).toBe(RunsPatterns.StartTriggeredRuns);
      requests.push(message.starts);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (fail) throw fail;
      // As runs-service's transaction does: one start PostgreSQL cannot store fails the request whole.
      if (message.starts.some((s) => s.user_message?.includes('\u0000'))) throw new RemoteProblemError(problemFromCode(ProblemCode.Internal, 'unexpected'));
      return {
        outcomes: message.starts.map((s) =>
          s.user_message === 'refuse'
            ? { refused: { type: 'about:blank', title: 'Conflict', status: 409, detail: 'refused' } }
            : { run_id: `run-of-${s.delivery_key}`, created: true },
        ),
      } as StartTriggeredRunsResponse;
    },
  } as unknown as ServiceClient;
  return { services, requests, failWith: (error: Error) => (fail = error) };
}

describe(TriggeredRunStarter.name, () => {
  it('sends starts that arrive together as one request, each caller getting its own outcome', async () => {
    const runs = runsService();
    const starter = new TriggeredRunStarter(runs.services);
    const outcomes = await Promise.all([1, 2, 3].map((n) => starter.startOne(start(n))));
    expect(runs.requests.map((r) => r.length)).toEqual([3]);
    expect(outcomes).toEqual([1, 2, 3].map((n) => ({ run_id: `run-of-delivery:msg_${n}`, created: true })));
  });

  it('gathers the starts that arrive while requests are in flight into the next request', async () => {
    const runs = runsService();
    const starter = new TriggeredRunStarter(runs.services);
    const first = Array.from({ length: 4 }, (_, i) => starter.startOne(start(i)));
    await new Promise((resolve) => setImmediate(resolve));
    // Four requests may be in flight: the next starts wait for one of them to end, then go together.
    const more = [starter.startOne(start(10)), starter.startOne(start(11)), starter.startOne(start(12)), starter.startOne(start(13)), starter.startOne(start(14))];
    await Promise.all([...first, ...more]);
    expect(runs.requests.flat()).toHaveLength(9);
    expect(runs.requests.length).toBeLessThan(9);
  });

  it("keeps a refusal to its own start, and fails every start of a request that failed", async () => {
    const runs = runsService();
    const starter = new TriggeredRunStarter(runs.services);
    const refused = { ...start(2), user_message: 'refuse' };
    const [ok, no] = await Promise.all([starter.startOne(start(1)), starter.startOne(refused)]);
    expect(ok).toEqual({ run_id: 'run-of-delivery:msg_1', created: true });
    expect(no).toMatchObject({ refused: { status: 409 } });

    runs.failWith(new Error('runs-service unavailable'));
    const settled = await Promise.allSettled([starter.startOne(start(3)), starter.startOne(start(4))]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  });

  describe('a request runs-service refused whole', () => {
    const poisoned = (n: number) => ({ ...start(n), user_message: 'nul \u0000 here' });

    it('is split until only the start to blame is refused; the others of its batch get their runs', async () => {
      const runs = runsService();
      const starter = new TriggeredRunStarter(runs.services);
      const outcomes = await Promise.all([...[1, 2, 3].map((n) => starter.startOne(start(n))), starter.startOne(poisoned(4)), starter.startOne(start(5))]);
      expect(outcomes.slice(0, 3)).toEqual([1, 2, 3].map((n) => ({ run_id: `run-of-delivery:msg_${n}`, created: true })));
      expect(outcomes[3]).toEqual({ refused: expect.objectContaining({ status: 500 }) });
      expect(outcomes[4]).toEqual({ run_id: 'run-of-delivery:msg_5', created: true });
      expect(runs.requests[0]).toHaveLength(5);
      expect(runs.requests.length).toBeLessThanOrEqual(1 + 2 * 3);
    });

    it("splits event triggers' starts the same way", async () => {
      const runs = runsService();
      const starter = new TriggeredRunStarter(runs.services);
      const outcomes = await starter.start([start(1), poisoned(2), start(3)]);
      expect(outcomes.map((o) => ('refused' in o ? o.refused.status : o.run_id))).toEqual(['run-of-delivery:msg_1', 500, 'run-of-delivery:msg_3']);
    });

    it('does not split on an outage or a timeout: every start of the request fails', async () => {
      const runs = runsService();
      const starter = new TriggeredRunStarter(runs.services);
      runs.failWith(new RemoteProblemError(problemFromCode(ProblemCode.GatewayTimeout, 'No reply')));
      await expect(starter.start([start(1), start(2)])).rejects.toBeInstanceOf(RemoteProblemError);
      expect(runs.requests).toHaveLength(1);
    });
  });
});
