import { AgentsPatterns, EventNames, ListRunsMessage } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ResourceNotFoundError } from '@aas/problem-details';
import { runRow } from '../database/run-row.fake';
import { RunEntity } from '../database/run.entity';
import { FakeRunRecordStore } from '../lifecycle/run-record.store.fake';
import { recorderOnFakes } from '../lifecycle/run-recorder.fake';
import { RunList } from '../run-list/run-list';
import { FakeRunStore } from './run.store.fake';
import { RunsService } from './runs.service';

describe(RunsService.name, () => {
  function setup(...runs: RunEntity[]) {
    const records = new FakeRunRecordStore(runs);
    const { lifecycle: runLifecycle, transactions, gone, signalled, admissionKicks } = recorderOnFakes(records);
    const store = new FakeRunStore(records);
    /** agents-service's answer for the owner: the agent is generation 1. */
    const services = {
      request: async (pattern: string, message: { user_id: string; agent_id: string }) => {
        expect(pattern).toBe(AgentsPatterns.GetOwnedAgent);
        if (message.user_id !== runs[0].userId) throw new ResourceNotFoundError('Agent', message.agent_id);
        return { agent_id: message.agent_id, generation: 1 };
      },
    } as unknown as ServiceClient;
    const runList = { read: async () => ({ runs: [], total: 0, page: 1, pageSize: 20 }) } as unknown as RunList;
    const sut = new RunsService(store, runList, services, runLifecycle, transactions);
    const lifecycle = () => records.outbox.map((w) => w.event).filter((e) => e !== EventNames.RunProgress);
    return { sut, store, records, signalled, gone, admissionKicks, lifecycle };
  }

  describe('cancel', () => {
    it('stops an unfinished run where it executes, with the reason, and frees its room', async () => {
      const run = runRow({ eventCount: '2' });
      const { sut, records, signalled, lifecycle, admissionKicks } = setup(run);
      expect(await sut.cancel(run.userId, run.agentId, run.id, 'enough')).toEqual({ success: true, error: null });
      expect(records.runs.get(run.id)).toMatchObject({ status: 'stopped', isFinished: true, eventCount: '3' });
      expect(records.events.at(-1)).toEqual({ runId: run.id, index: 2, at: expect.any(Date), body: { stopped: { reason: 'enough' } } });
      expect([lifecycle(), signalled, admissionKicks]).toEqual([[EventNames.RunStopped], [run.id], [run.userId]]);
    });

    it('leaves a finished run as it is and says so, which is no error', async () => {
      const run = runRow({ status: 'completed', isFinished: true, eventCount: '5' });
      const { sut, records, signalled } = setup(run);
      expect(await sut.cancel(run.userId, run.agentId, run.id, null)).toEqual({
        success: true,
        error: `Run ${run.id} had already finished (completed); nothing to cancel`,
      });
      // Nothing recorded, so nothing follows: no worker is signalled.
      expect([records.events, records.outbox, signalled]).toEqual([[], [], []]);
    });
  });

  describe('delete', () => {
    it('stops an unfinished run first, then deletes it and ends its open streams', async () => {
      const run = runRow();
      const { sut, store, signalled, gone, lifecycle } = setup(run);
      await sut.delete(run.userId, run.agentId, run.id);
      expect([await store.findById(run.id), lifecycle(), signalled, gone]).toEqual([null, [EventNames.RunStopped], [run.id], [run.id]]);
    });

    it('deletes a finished run without recording anything', async () => {
      const run = runRow({ status: 'completed', isFinished: true });
      const { sut, store, records, signalled, gone } = setup(run);
      await sut.delete(run.userId, run.agentId, run.id);
      expect([await store.findById(run.id), records.outbox, signalled, gone]).toEqual([null, [], [], [run.id]]);
    });
  });

  it("takes a deleted agent's id over for the new agent: its runs go, their workers stop and the user's room is freed at once", async () => {
    const run = runRow({ agentGeneration: '0', eventCount: '2' });
    const { sut, store, signalled, admissionKicks } = setup(run);
    store.generations.set(run.agentId, 0);
    await sut.list({ user_id: run.userId, agent_id: run.agentId } as ListRunsMessage);
    expect([await store.findById(run.id), signalled, admissionKicks]).toEqual([null, [run.id], [run.userId]]);
  });

  it.each([
    ['of an earlier agent that had the same id (another generation)', { agentGeneration: '0' }, {}],
    ['of another agent', {}, { agentId: '99999999-9999-4999-8999-999999999999' }],
    ['whose id is no uuid', {}, { runId: 'nope' }],
  ])('answers 404 for cancelling or deleting a run %s, and changes nothing', async (_, fields, asked: { agentId?: string; runId?: string }) => {
    const run = runRow(fields);
    const { sut, store, records } = setup(run);
    const [agentId, runId] = [asked.agentId ?? run.agentId, asked.runId ?? run.id];
    await expect(sut.cancel(run.userId, agentId, runId, null)).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(sut.delete(run.userId, agentId, runId)).rejects.toBeInstanceOf(ResourceNotFoundError);
    expect([await store.findById(run.id), records.outbox]).toEqual([run, []]);
  });

  it("answers 404 for another user's run", async () => {
    const run = runRow();
    const { sut } = setup(run);
    await expect(sut.cancel('c0000000-0000-4000-8000-000000000000', run.agentId, run.id, null)).rejects.toBeInstanceOf(ResourceNotFoundError);
  });
});
