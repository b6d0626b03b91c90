import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { api, unwrap } from '../api';
import { ErrorNote, Loading } from '../components/feedback';
import { StatusBadge } from '../components/status-badge';
import { formatInZone } from '../components/time';
import { useAgent } from './agent-page';

interface ScheduleForm {
  cron: string;
  timezone: string;
  overlap: 'skip' | 'allow';
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

/** The agent's cron schedule: an editor showing the next five fires as one types, pause, resume, delete, auto-pause state. */
export function ScheduleTab() {
  const agent = useAgent();
  const client = useQueryClient();
  const path = { params: { path: { agent_id: agent.agent_id } } };
  const schedule = useQuery({ queryKey: ['schedule', agent.agent_id], queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/schedule', path)) });
  const existing = schedule.data?.schedule ?? null;
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const form = useForm<ScheduleForm>({
    values: { cron: existing?.cron ?? '0 0 9 ? * MON-FRI *', timezone: existing?.timezone ?? browserZone, overlap: (existing?.overlap as ScheduleForm['overlap']) ?? 'skip' },
  });
  const cron = form.watch('cron');
  const timezone = form.watch('timezone');
  const wanted = useSettled({ cron: cron.trim(), timezone: timezone.trim() }, 250);
  const preview = useQuery({
    queryKey: ['schedule-preview', wanted.cron, wanted.timezone],
    queryFn: () => unwrap(api.POST('/v1/schedules/preview', { body: { cron: wanted.cron, timezone: wanted.timezone || undefined } })),
    enabled: wanted.cron !== '',
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
      outcome(unwrap(api.PUT('/v1/agents/{agent_id}/schedule', { ...path, body: { cron: values.cron.trim(), timezone: values.timezone.trim() || undefined, overlap: values.overlap } }))),
    onSettled: refresh,
  });
  const pause = useMutation({ mutationFn: () => outcome(unwrap(api.POST('/v1/agents/{agent_id}/schedule/pause', path))), onSettled: refresh });
  const resume = useMutation({ mutationFn: () => outcome(unwrap(api.POST('/v1/agents/{agent_id}/schedule/resume', path))), onSettled: refresh });
  const remove = useMutation({ mutationFn: () => outcome(unwrap(api.DELETE('/v1/agents/{agent_id}/schedule', path))), onSettled: refresh });
  const zones = useMemo(() => Intl.supportedValuesOf('timeZone'), []);
  if (schedule.isPending) return <Loading what="the schedule" />;
  if (schedule.isError) return <ErrorNote error={schedule.error} />;
  const shownZone = (preview.isSuccess ? wanted.timezone : '') || 'UTC';
  return (
    <div className="schedule">
      {existing ? (
        <article>
          <div className="section-head">
            <strong>
              <code>{existing.cron}</code> {existing.timezone ?? 'UTC'}
            </strong>
            <StatusBadge status={existing.paused ? (existing.auto_paused ? 'auto_paused' : 'paused') : 'active'} />
          </div>
          {existing.auto_paused && (
            <p className="error-note">Paused by the service after {existing.consecutive_failures} failed runs in a row. Resume it once the agent works again.</p>
          )}
          <p className="muted">
            {existing.paused ? 'Would fire next' : 'Fires next'} {formatInZone(existing.next_run, existing.timezone ?? 'UTC')} · failures in a row: {existing.consecutive_failures} · overlap: {existing.overlap}
          </p>
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
            <button
              type="button"
              className="secondary outline"
              onClick={() => {
                if (confirm('Delete the schedule?')) remove.mutate();
              }}
            >
              Delete schedule
            </button>
          </div>
          <ErrorNote error={pause.error ?? resume.error ?? remove.error} />
        </article>
      ) : (
        <p className="muted">No schedule: the agent runs only when started.</p>
      )}
      <form onSubmit={form.handleSubmit((values) => save.mutate(values))}>
        <div className="grid">
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
          <label>
            Timezone
            <input list="timezones" spellCheck={false} {...form.register('timezone')} />
            <datalist id="timezones">
              {zones.map((zone) => (
                <option key={zone} value={zone} />
              ))}
            </datalist>
          </label>
          <label>
            While a run is still going
            <select {...form.register('overlap')}>
              <option value="skip">skip the next fire</option>
              <option value="allow">start another run</option>
            </select>
          </label>
        </div>
        <div className="preview" aria-live="polite" aria-label="Next fire times">
          {preview.isError ? (
            <ErrorNote error={preview.error} />
          ) : preview.data ? (
            <>
              <strong>Next five fires ({shownZone})</strong>
              <ol data-testid="next-fires">
                {preview.data.upcoming.map((at) => (
                  <li key={at}>{formatInZone(at, shownZone)}</li>
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
    </div>
  );
}
