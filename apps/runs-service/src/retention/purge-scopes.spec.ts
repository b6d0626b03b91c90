import { purgeScopes } from './purge-scopes';

describe('purgeScopes', () => {
  it('is one pass over every agent when no workspace has its own retention', () => {
    expect(purgeScopes(30, [])).toEqual([{ olderThanDays: 30, exceptAgentIds: [] }]);
  });

  it('is no pass at all when runs are kept forever', () => {
    expect(purgeScopes(0, [])).toEqual([]);
    expect(purgeScopes(0, [{ agentIds: ['a'], days: 0 }])).toEqual([]);
  });

  it('leaves the agents of workspaces with their own retention out of the default pass, one pass per retention', () => {
    expect(
      purgeScopes(30, [
        { agentIds: ['a', 'b'], days: 1 },
        { agentIds: ['c'], days: 0 },
        { agentIds: ['d'], days: 1 },
        { agentIds: ['e'], days: 90 },
      ]),
    ).toEqual([
      { olderThanDays: 30, exceptAgentIds: ['a', 'b', 'c', 'd', 'e'] },
      { olderThanDays: 1, agentIds: ['a', 'b', 'd'], exceptAgentIds: [] },
      { olderThanDays: 90, agentIds: ['e'], exceptAgentIds: [] },
    ]);
  });

  it('purges a workspace with its own retention even when the default keeps runs forever', () => {
    expect(purgeScopes(0, [{ agentIds: ['a'], days: 7 }])).toEqual([{ olderThanDays: 7, agentIds: ['a'], exceptAgentIds: [] }]);
  });
});
