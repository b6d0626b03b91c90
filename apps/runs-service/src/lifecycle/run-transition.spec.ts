import { EventNames } from '@aas/contracts';
import { runRow } from '../database/run-row.fake';
import { changeFor, stateOf } from './run-change';
import { AskedInputRequest, ClosedInputRequest, answer, pauseWaiting, suspend } from './run-transition';

const asked: AskedInputRequest = {
  id: 'r1',
  inputId: 'q',
  prompt: 'ok?',
  schema: { type: 'string' },
  choices: null,
  notify: [],
  onTimeout: { action: 'fail' },
  state: '{}',
  timeLeftMs: 1000,
  pauseAt: new Date(),
  timeoutAt: new Date(),
};
const closed: ClosedInputRequest = { id: 'r1', status: 'answered', answer: '"yes"', answeredBy: { kind: 'user', user_id: 'u', api_key_id: 'k' } };

describe('the input request edges', () => {
  it('suspend: pending input, the request asked with it, and the run out of the executing count (still admitted)', () => {
    const run = runRow({ eventCount: '2' });
    const change = changeFor(run, suspend(stateOf(run), { waiting_for_input: {} }, asked), new Date());
    expect(change.run).toMatchObject({ status: 'in_progress', hasPendingInput: true, awaitingInput: true, admittedAt: run.admittedAt });
    expect(change.inputRequest).toEqual({ asked });
    // agents-service shows pending input: a progress event, and no lifecycle event.
    expect(change.outbox.map((o) => o.event)).toEqual([EventNames.RunProgress]);
  });

  it('answer: a paused run is in progress again, input no longer pending, and it waits for admission', () => {
    const run = runRow({ eventCount: '4', status: 'paused', isPaused: true, hasPendingInput: true, awaitingInput: true });
    const change = changeFor(run, answer(stateOf(run), { input_answered: {} }, closed), new Date());
    expect(change.run).toMatchObject({ status: 'in_progress', isPaused: false, hasPendingInput: false, awaitingInput: false, admittedAt: null });
    expect(change.inputRequest).toEqual({ closed });
    expect(change.outbox.map((o) => o.event)).toEqual([EventNames.RunProgress]);
  });

  it('pause of a suspended run fires run.paused, leaves it suspended, and is written only with its request (still pending)', () => {
    const run = runRow({ eventCount: '2', hasPendingInput: true, awaitingInput: true });
    const first = changeFor(run, pauseWaiting(stateOf(run), 'r1'), new Date());
    expect([first.run.status, first.run.awaitingInput, first.outbox.map((o) => o.event)]).toEqual(['paused', true, [EventNames.RunPaused, EventNames.RunProgress]]);
    expect(first.inputRequest).toEqual({ paused: 'r1' });
    const again = changeFor(first.run, pauseWaiting(stateOf(first.run), 'r1'), new Date());
    expect(again.outbox).toEqual([]);
  });
});
