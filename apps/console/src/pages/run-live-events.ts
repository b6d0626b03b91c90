import { type RunEvent, streamRunEvents } from '@aas/sdk';
import { useEffect, useState } from 'react';
import { api, problemDetail } from '../api';

export type StreamState = 'connecting' | 'live' | 'ended' | 'reconnecting';

/**
 * A run's events as they are recorded, over the API's Server-Sent Events stream; a
 * stream that drops is resumed after the last event seen (Last-Event-ID).
 */
export function useLiveEvents(agentId: string, runId: string, onEnd: () => void) {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [state, setState] = useState<StreamState>('connecting');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    let last: number | undefined;
    const run = async () => {
      for (let attempt = 0; !abort.signal.aborted; attempt++) {
        try {
          for await (const message of streamRunEvents(api, agentId, runId, { lastEventIndex: last, signal: abort.signal })) {
            if (message.kind === 'end') {
              setState('ended');
              onEnd();
              return;
            }
            setState('live');
            setError(null);
            last = message.event.event_index;
            setEvents((seen) => [...seen, message.event]);
          }
        } catch (failure) {
          if (abort.signal.aborted) return;
          setError(problemDetail(failure));
          if (failure instanceof Error && 'status' in failure && (failure as { status: number }).status < 500) return;
        }
        setState('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 500 * 2 ** Math.min(attempt, 5))));
      }
    };
    setEvents([]);
    void run();
    return () => abort.abort();
    // onEnd is a refetch: the stream restarts only for another run.
  }, [agentId, runId]);
  return { events, state, error };
}

