/**
 * Why an app's workers do not consume exactly the queues it must (`expected`): a queue with no worker
 * (its jobs would wait forever), one with two (they would race for its jobs with different code), or one
 * of another app's; undefined when they do.
 */
export function consumedQueuesProblem(service: string, expected: readonly string[], consumed: readonly string[]): string | undefined {
  const missing = expected.filter((queue) => !consumed.includes(queue));
  const doubled = [...new Set(consumed.filter((queue, i) => consumed.indexOf(queue) !== i))];
  const foreign = [...new Set(consumed.filter((queue) => !expected.includes(queue)))];
  const problems = [
    missing.length > 0 ? `no worker for ${missing.join(', ')}` : '',
    doubled.length > 0 ? `two workers or more for ${doubled.join(', ')}` : '',
    foreign.length > 0 ? `workers for queues it does not consume: ${foreign.join(', ')}` : '',
  ].filter(Boolean);
  return problems.length > 0 ? `${service}: ${problems.join('; ')}` : undefined;
}
