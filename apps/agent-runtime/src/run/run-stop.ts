/** Why a run's abort signal fired: the runs-service closed the connection (a cancel), or a limit. */
export class RunCancelled extends Error {
  override name = 'RunCancelled';
  constructor() {
    super('the dispatch connection was closed (the run was cancelled)');
  }
}

/** Ends a run with a `failed` line carrying this message. */
export class RunStopped extends Error {
  override name = 'RunStopped';
}

export function deadlineStop(deadlineAt: string): RunStopped {
  return new RunStopped(`deadline (deadline_at ${deadlineAt}) passed before the run finished`);
}

export function shutdownStop(drainMs: number): RunStopped {
  return new RunStopped(`the agent runtime shut down before the run finished (SHUTDOWN_DRAIN_MS=${drainMs} passed)`);
}

/** A run that asked a person and suspended (protocol version 3): its stream ends after the question, with no terminal line. */
export class RunSuspended extends Error {
  override name = 'RunSuspended';
  constructor() {
    super('the run asked a person and suspended until the answer');
  }
}
