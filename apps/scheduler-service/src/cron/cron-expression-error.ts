/** Why a cron expression or timezone was refused; the message is shown to API clients in a 400 detail. */
export class CronExpressionError extends Error {
  override name = 'CronExpressionError';
}
