/** One dependency readiness depends on. `check` rejects when it is down. */
export interface HealthCheck {
  readonly name: string;
  check(): Promise<void>;
}

export const HEALTH_CHECKS = Symbol('HEALTH_CHECKS');

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'up' | string>;
}

export async function runHealthChecks(checks: HealthCheck[], timeoutMs = 3000): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await withTimeout(c.check(), timeoutMs, `${c.name} did not answer within ${timeoutMs} ms`);
        return [c.name, 'up'] as const;
      } catch (error) {
        return [c.name, `down: ${(error as Error).message || 'unreachable'}`] as const;
      }
    }),
  );
  return { ready: results.every(([, s]) => s === 'up'), checks: Object.fromEntries(results) };
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
