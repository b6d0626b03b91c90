import type { Schemas } from '@aas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../api';
import { ConfirmButton } from '../components/confirm-button';
import { ErrorNote } from '../components/feedback';

type Run = Schemas['RunDto'];
type Instructions = 'original' | 'current';

/**
 * Starts a new run with this run's input (POST …/replay), on the instructions version it ran or the
 * agent's current ones, and opens it. A run that recorded no version can only be replayed on the current ones.
 */
export function ReplayButton({ run }: { run: Run }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const ranVersion = run.instructions_version_id ?? null;
  const [instructions, setInstructions] = useState<Instructions>(ranVersion === null ? 'current' : 'original');
  const replay = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/v1/agents/{agent_id}/runs/{run_id}/replay', { params: { path: { agent_id: run.agent_id, run_id: run.run_id } }, body: { instructions } })),
    onSuccess: (answer) => {
      void client.invalidateQueries({ queryKey: ['runs', run.agent_id] });
      void navigate(`/agents/${run.agent_id}/runs/${answer.run.run_id}`);
    },
  });
  const choice = (value: Instructions, label: string, disabled = false) => (
    <label>
      <input type="radio" name="replay-instructions" value={value} checked={instructions === value} disabled={disabled} onChange={() => setInstructions(value)} />
      {label}
    </label>
  );
  return (
    <>
      <ConfirmButton
        className="secondary outline"
        title={`Replay run ${run.run_number}?`}
        message={
          <>
            <p>A new run starts with the same input ({run.goal ? <q>{run.goal}</q> : 'no message'}).</p>
            <fieldset>
              <legend>Instructions</legend>
              {choice('original', ranVersion === null ? 'the version it ran (none was recorded)' : `version ${ranVersion}, the one it ran`, ranVersion === null)}
              {choice('current', "the agent's current instructions")}
            </fieldset>
          </>
        }
        confirmLabel="Replay"
        destructive={false}
        busy={replay.isPending}
        onConfirm={() => replay.mutate()}
      >
        Replay
      </ConfirmButton>
      <ErrorNote error={replay.error} />
    </>
  );
}
