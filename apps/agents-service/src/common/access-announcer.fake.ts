import { AccessAnnouncer } from './access-announcer';

/** Remembers what would have been announced to the gateways. */
export class FakeAccessAnnouncer implements Pick<AccessAnnouncer, keyof AccessAnnouncer> {
  readonly endedSessions: string[] = [];
  readonly deletedAgents: string[] = [];

  async sessionsEnded(sessionIds: string[]): Promise<void> {
    this.endedSessions.push(...sessionIds);
  }

  async agentsDeleted(userId: string, agentIds: string[]): Promise<void> {
    this.deletedAgents.push(...agentIds.map((id) => `${userId}:${id}`));
  }
}
