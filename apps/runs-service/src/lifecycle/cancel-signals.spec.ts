import { RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';
import { CancelSignals } from './cancel-signals';

describe(CancelSignals.name, () => {
  it("keeps a continuation's registration when the dispatch before it releases late", () => {
    const signals = new CancelSignals({} as Redis, {} as RedisKeyspace);
    const [first, continuation] = [new AbortController(), new AbortController()];
    const releaseFirst = signals.register('run-1', first);
    signals.register('run-1', continuation);
    releaseFirst();
    signals.abortAll('shutdown');
    expect([first.signal.aborted, continuation.signal.aborted]).toEqual([false, true]);
  });
});
