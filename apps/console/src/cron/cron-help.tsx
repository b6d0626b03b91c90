import { describeCron } from './describe-cron';
import { unixToQuartz } from './unix-to-quartz';

/**
 * Under the cron field: the expression in plain English, or, for a pasted Unix (5-field) one, its
 * Quartz equivalent to use instead (the API takes only Quartz's 7 fields), or why there is none.
 */
export function CronHelp({ expression, onUse }: { expression: string; onUse: (quartz: string) => void }) {
  const conversion = unixToQuartz(expression);
  const description = describeCron(conversion && 'quartz' in conversion ? conversion.quartz : expression);
  return (
    <div className="cron-help" aria-live="polite" data-testid="cron-help">
      {conversion && 'problem' in conversion ? (
        <p className="error-note">That looks like a Unix (5-field) expression. {conversion.problem}</p>
      ) : conversion ? (
        <p>
          That looks like a Unix (5-field) expression; the schedule takes Quartz&apos;s 7 fields. In Quartz: <code data-testid="quartz-equivalent">{conversion.quartz}</code>
          {description && <> — “{description}”</>}{' '}
          <button type="button" className="secondary small" onClick={() => onUse(conversion.quartz)}>
            Use the Quartz expression
          </button>
        </p>
      ) : description ? (
        <p className="muted" data-testid="cron-description">
          “{description}”
        </p>
      ) : null}
    </div>
  );
}
