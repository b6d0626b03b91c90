/** What started a run: the API, or a schedule (whose agent is then named on the run). */
export interface RunTrigger {
  runKind: 'api' | 'schedule';
  scheduleAgentId: string | null;
}
