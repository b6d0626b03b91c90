import type { Schemas } from '@aas/sdk';
import { useEffect, useState } from 'react';
import { durationText } from './run-duration';

/** A run's duration; one that goes on counts up each second. */
export function RunDuration({ run }: { run: Pick<Schemas['RunDto'], 'started_at' | 'finished_at' | 'is_finished' | 'last_event_at'> }) {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (run.is_finished) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [run.is_finished]);
  const end = run.finished_at ?? (run.is_finished ? run.last_event_at : null);
  return <span className="duration">{durationText(run.started_at, end, now)}</span>;
}
