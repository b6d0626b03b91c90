import { TZDate } from '@date-fns/tz';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { format } from 'date-fns';
import { useEffect, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { api, unwrap } from '../api';
import { ErrorNote, Loading } from '../components/feedback';
import { StatusBadge } from '../components/status-badge';
import { When, formatInZone, isTimeZone } from '../components/time';
import { useAgent } from './agent-page';
import { ConfirmButton } from '../components/confirm-button';
import { CronHelp } from '../cron/cron-help';

interface ScheduleForm {
  cron: string;
  timezone: string;
  overlap: 'skip' | 'allow';
  misfire: Misfire;
  /** Seconds, as typed; sent only with misfire catch_up. */
  catch_up_window: string;
}

type Misfire = 'skip' | 'fire_once' | 'catch_up';
const MISFIRES: Record<Misfire, string> = {
  skip: 'skip them',
  fire_once: 'fire once for all',
  catch_up: 'catch up each one',
};
const CATCH_UP_WINDOW_DEFAULT = 3600;
const CATCH_UP_WINDOW_MAX = 7 * 24 * 3600;

/** How a schedule treats fire times it missed, in words. */
function misfireText(schedule: { misfire?: Misfire; catch_up_window?: number | null }): string {
  if (schedule.misfire === 'catch_up') return `catch up within ${schedule.catch_up_window ?? CATCH_UP_WINDOW_DEFAULT} s`;
  return schedule.misfire === 'skip' ? 'skip' : 'fire once';
}

const EXAMPLES: [string, string][] = [
  ['0 0 9 ? * MON-FRI *', 'weekdays at 09:00'],
  ['0 */15 * * * ? *', 'every 15 minutes'],
  ['0 0 0 L * ? *', 'midnight on the last day of the month'],
];

/** A value that follows `value` once it has stopped changing for `ms`: the preview asks as the user pauses typing. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The agent's cron schedule: an editor showing the next five fires as one types, missed-fire policy, pause, resume, delete, auto-pause, last error, backfill. */
export function ScheduleTab() {
  const agent = useAgent();
  const client = useQueryClient();
  const path = { params: { path: { agent_id: agent.agent_id } } };
  const schedule = useQuery({ queryKey: ['schedule', agent.agent_id], queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/schedule', path)) });
  const existing = schedule.data?.schedule ?? null;
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const form = useForm<ScheduleForm>({
    values: {
      cron: existing?.cron ?? '0 0 9 ? * MON-FRI *',
      timezone: existing?.timezone ?? browserZone,
      overlap: (existing?.overlap as ScheduleForm['overlap']) ?? 'skip',
      misfire: existing?.misfire ?? 'fire_once',
      catch_up_window: String(existing?.catch_up_window ?? CATCH_UP_WINDOW_DEFAULT),
    },
  });
  const misfire = form.watch('misfire');
  const cron = form.watch('cron');
  const timezone = form.watch('timezone');
  const wanted = useSettled({ cron: cron.trim(), timezone: timezone.trim() }, 250);
  const preview = useQuery({
    queryKey: ['schedule-preview', wanted.cron, wanted.timezone],
    // The fires come with the zone they were computed for: while a new zone is typed, the last ones stay shown in theirs.
    queryFn: async () => ({
      zone: wanted.timezone || 'UTC',
      ...(await unwrap(api.POST('/v1/schedules/preview', { body: { cron: wanted.cron, timezone: wanted.timezone || undefined } }))),
    }),
    enabled: wanted.cron !== '' && (wanted.timezone === '' || isTimeZone(wanted.timezone)),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const refresh = () => void client.invalidateQueries({ queryKey: ['schedule', agent.agent_id] });
  const outcome = async (call: Promise<{ success: boolean; error?: string | null }>) => {
    const result = await call;
    if (!result.success) throw new Error(result.error ?? 'The schedule did not change');
  };
  const save = useMutation({
    mutationFn: (values: ScheduleForm) =>
      outcome(
        unwrap(
          api.PUT('/v1/agents/{agent_id}/schedule', {
            ...path,
            body: {
              cron: values.cron.trim(),
              timezone: values.timezone.trim() || undefined,
              overlap: values.overlap,
              misfire: values.misfire,
              catch_up_window: values.misfire === 'catch_up' ? Number(values.catch_up_window) : undefined,
            },
          }),
        ),
      ),
    onSettled: refresh,
  });
  const pause = useMutation({ mutationFn: () => outcome(unwrap(api.POST('/v1/agents/{agent_id}/schedule/pause', path))), onSettled: refresh });
  const resume = useMutation({ mutationFn: () => outcome(unwrap(api.POST('/v1/agents/{agent_id}/schedule/resume', path))), onSettled: refresh });
  const remove = useMutation({ mutationFn: () => outcome(unwrap(api.DELETE('/v1/agents/{agent_id}/schedule', path))), onSettled: refresh });
  const zones = useMemo(() => Intl.supportedValuesOf('timeZone'), []);
  if (schedule.isPending) return <Loading what="the schedule" />;
  if (schedule.isError) return <ErrorNote error={schedule.error} />;
  const zoneProblem =
    wanted.timezone !== '' && !isTimeZone(wanted.timezone) ? 'Not a time zone (yet): pick one from the list, like Europe/Paris or America/Chicago.' : null;
  return (
    <div className="schedule">
      {existing ? (
        <article>
          <div className="section-head">
            <strong>
              <code>{existing.cron}</code> {existing.timezone ?? 'UTC'}
            </strong>
            <StatusBadge status={existing.finished ? 'finished' : existing.paused ? (existing.auto_paused ? 'auto_paused' : 'paused') : 'active'} />
          </div>
          {existing.finished && <p className="muted">Finished: the expression has no further fire time. Replace it below to schedule again.</p>}
          {existing.auto_paused && (
            <p className="error-note">Paused by the service after {existing.consecutive_failures} failed runs in a row. Resume it once the agent works again.</p>
          )}
          <p className="muted" data-testid="schedule-facts">
            {!existing.finished && (
              <>
                {existing.paused ? 'Would fire next' : 'Fires next'} {formatInZone(existing.next_run, existing.timezone ?? 'UTC')} ·{' '}
              </>
            )}
            failures in a row: {existing.consecutive_failures} · overlap: {existing.overlap} · missed fires: {misfireText(existing)}
          </p>
          {existing.last_error && (
            <p className="error-note" data-testid="schedule-last-error">
              Last error (<When at={existing.last_error_at} />): {existing.last_error}
            </p>
          )}
          <div className="row-actions">
            {existing.paused ? (
              <button type="button" onClick={() => resume.mutate()} aria-busy={resume.isPending}>
                Resume
              </button>
            ) : (
              <button type="button" className="secondary" onClick={() => pause.mutate()} aria-busy={pause.isPending}>
                Pause
              </button>
            )}
            <ConfirmButton title="Delete the schedule?" message={<p>The agent stops being started on this schedule; runs already started go on.</p>} confirmLabel="Delete schedule" busy={remove.isPending} onConfirm={() => remove.mutate()}>
              Delete schedule
            </ConfirmButton>
          </div>
          <ErrorNote error={pause.error ?? resume.error ?? remove.error} />
        </article>
      ) : (
        <p className="muted">No schedule: the agent runs only when started.</p>
      )}
      <form onSubmit={form.handleSubmit((values) => save.mutate(values))} noValidate>
        <div className="grid">
          <div>
            <label>
              Cron (sec min hour day-of-month month day-of-week year)
              <input className="mono" spellCheck={false} aria-invalid={preview.isError ? true : undefined} {...form.register('cron', { required: true })} />
              <small>
                {EXAMPLES.map(([expression, meaning], i) => (
                  <span key={expression}>
                    {i > 0 && ' · '}
                    <button type="button" className="link" onClick={() => form.setValue('cron', expression, { shouldDirty: true })}>
                      {meaning}
                    </button>
                  </span>
                ))}
              </small>
            </label>
            <CronHelp expression={cron} onUse={(quartz) => form.setValue('cron', quartz, { shouldDirty: true })} />
          </div>
          <div>
            <label htmlFor="schedule-timezone">Timezone</label>
            <input
              id="schedule-timezone"
              list="timezones"
              spellCheck={false}
              aria-invalid={zoneProblem ? true : undefined}
              aria-describedby="timezone-help"
              {...form.register('timezone')}
            />
            <small id="timezone-help">{zoneProblem ?? 'An IANA time zone; empty means UTC.'}</small>
            <datalist id="timezones">
              {zones.map((zone) => (
                <option key={zone} value={zone} />
              ))}
            </datalist>
          </div>
          <label>
            While a run is still going
            <select {...form.register('overlap')}>
              <option value="skip">skip the next fire</option>
              <option value="allow">start another run</option>
            </select>
          </label>
        </div>
        <div className="grid">
          <label>
            Fire times missed (the scheduler was down)
            <select {...form.register('misfire')}>
              {Object.entries(MISFIRES).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          {misfire === 'catch_up' ? (
            <label>
              Catch-up window (seconds)
              <input
                type="number"
                min={1}
                max={CATCH_UP_WINDOW_MAX}
                aria-invalid={form.formState.errors.catch_up_window ? true : undefined}
                {...form.register('catch_up_window', {
                  validate: (v) => (Number.isInteger(Number(v)) && Number(v) >= 1 && Number(v) <= CATCH_UP_WINDOW_MAX) || `1 to ${CATCH_UP_WINDOW_MAX} seconds (7 days)`,
                })}
              />
              <small>{form.formState.errors.catch_up_window?.message ?? 'Missed fires older than this are dropped.'}</small>
            </label>
          ) : (
            <div />
          )}
        </div>
        <div className="preview" aria-live="polite" aria-label="Next fire times">
          {preview.isError ? (
            <ErrorNote error={preview.error} />
          ) : preview.data ? (
            <>
              <strong>Next five fires ({preview.data.zone})</strong>
              <ol data-testid="next-fires">
                {preview.data.upcoming.map((at) => (
                  <li key={at}>{formatInZone(at, preview.data.zone)}</li>
                ))}
              </ol>
            </>
          ) : (
            <span className="muted">Type an expression to see when it fires.</span>
          )}
        </div>
        {agent.deployment_state !== 'deployed' && <p className="muted">The agent must be deployed (built) before it can be scheduled.</p>}
        <button type="submit" disabled={preview.isError} aria-busy={save.isPending}>
          {existing ? 'Replace the schedule' : 'Set the schedule'}
        </button>
        <ErrorNote error={save.error} />
      </form>
      {existing && <Backfill agentId={agent.agent_id} timezone={existing.timezone ?? 'UTC'} />}
    </div>
  );
}

/** "2026-11-20T09:30" typed in `zone`, as the instant it names (ISO 8601, UTC). */
function instantOf(local: string, zone: string): string {
  const [year, month, day, hour, minute, second = 0] = local.split(/[-T:]/).map(Number);
  return new Date(new TZDate(year, month - 1, day, hour, minute, second, zone).getTime()).toISOString();
}

const localNow = (zone: string, minusMs = 0) => format(new TZDate(Date.now() - minusMs, zone), "yyyy-MM-dd'T'HH:mm");

interface BackfillForm {
  from: string;
  to: string;
  zone: 'schedule' | 'UTC';
}

/** Start the runs of the fire times in a past range (the API refuses future or too-wide ranges with a 400 that says why). */
function Backfill({ agentId, timezone }: { agentId: string; timezone: string }) {
  const client = useQueryClient();
  const form = useForm<BackfillForm>({ defaultValues: { from: localNow(timezone, 3_600_000), to: localNow(timezone), zone: 'schedule' } });
  const zoneOf = (choice: BackfillForm['zone']) => (choice === 'UTC' ? 'UTC' : timezone);
  const backfill = useMutation({
    mutationFn: (values: BackfillForm) =>
      unwrap(
        api.POST('/v1/agents/{agent_id}/schedule/backfill', {
          params: { path: { agent_id: agentId } },
          body: { from: instantOf(values.from, zoneOf(values.zone)), to: instantOf(values.to, zoneOf(values.zone)) },
        }),
      ),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['runs', agentId] }),
  });
  const shownZone = zoneOf(backfill.variables?.zone ?? 'schedule');
  return (
    <details className="backfill">
      <summary>Backfill: run the fire times of a past range</summary>
      <form onSubmit={form.handleSubmit((values) => backfill.mutate(values))} noValidate aria-label="Backfill">
        <div className="grid">
          <label>
            From
            <input type="datetime-local" step={1} {...form.register('from', { required: true })} />
          </label>
          <label>
            To
            <input type="datetime-local" step={1} {...form.register('to', { required: true })} />
          </label>
          <label>
            In
            <select {...form.register('zone')}>
              <option value="schedule">{timezone} (the schedule's)</option>
              {timezone !== 'UTC' && <option value="UTC">UTC</option>}
            </select>
          </label>
        </div>
        <small className="muted">Both ends count; one run per fire time (at most 100), none in the future. A fire time that already has a run answers that run.</small>
        <div className="row-actions">
          <button type="submit" className="secondary" aria-busy={backfill.isPending}>
            Backfill
          </button>
        </div>
        <ErrorNote error={backfill.error} />
        {backfill.data &&
          (backfill.data.runs.length === 0 ? (
            <p className="muted">No fire time in this range.</p>
          ) : (
            <>
              <p>
                {backfill.data.runs.length} run{backfill.data.runs.length === 1 ? '' : 's'}, oldest first:
              </p>
              <ol aria-label="Backfilled runs" className="backfilled">
                {backfill.data.runs.map((run) => (
                  <li key={run.run_id}>
                    <Link to={`/agents/${agentId}/runs/${run.run_id}`}>{formatInZone(new Date(run.fire_time).getTime(), shownZone)}</Link>
                  </li>
                ))}
              </ol>
            </>
          ))}
      </form>
    </details>
  );
}
