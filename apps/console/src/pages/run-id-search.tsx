import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../api';
import { ErrorNote } from '../components/feedback';

/** Search by run id: a whole id of one of the caller's runs opens it (the API matches ids whole, not by prefix). */
export function RunIdSearch() {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const find = useMutation({
    mutationFn: (runId: string) => unwrap(api.GET('/v1/runs', { params: { query: { filter_run_id: runId, page_size: 1 } } })),
    onSuccess: ({ runs }) => {
      const run = runs[0];
      if (run) void navigate(`/agents/${run.agent_id}/runs/${run.run_id}`);
    },
  });
  const notFound = find.isSuccess && find.data.runs.length === 0;
  return (
    <form
      role="search"
      className="run-id-search"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) find.mutate(text.trim());
      }}
    >
      <fieldset role="group">
        <input type="search" aria-label="Run id" placeholder="Open a run by its id" value={text} onChange={(e) => setText(e.target.value)} aria-describedby="run-id-result" />
        <button type="submit" aria-busy={find.isPending}>
          Open
        </button>
      </fieldset>
      <p id="run-id-result" className="muted" role="status">
        {notFound ? `None of your runs has the id “${find.variables}”. A run id is matched whole.` : ''}
      </p>
      <ErrorNote error={find.error} />
    </form>
  );
}
