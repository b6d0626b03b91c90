import { HealthCheck } from '@aas/platform';
import { ActiveRuns } from '../dispatch/active-runs';

/** Not ready while draining, so a load balancer stops sending dispatches; the runtime has no other dependency. */
export function drainCheck(active: ActiveRuns): HealthCheck {
  return {
    name: 'dispatches',
    check: async () => {
      if (active.isDraining) throw new Error('shutting down');
    },
  };
}
