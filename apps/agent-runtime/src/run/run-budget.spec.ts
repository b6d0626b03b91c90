import { RunBudget, outcomeOf } from './run-budget';

describe(RunBudget.name, () => {
  it('adds up each call and names the token limit once the run is past it', () => {
    const budget = new RunBudget(5, 1000);
    expect(budget.addUsage(300, 200)).toBeUndefined();
    expect(budget.addUsage(undefined, 500)).toBeUndefined();
    expect(budget.used).toBe(1000);
    expect(budget.addUsage(1, 0)?.message).toBe('token limit (AGENT_MAX_TOKENS=1000) reached: the run used 1001 tokens');
  });

  it('names the step limit with its setting', () => {
    expect(new RunBudget(3, 1000).stepLimit().message).toMatch(/^step limit \(AGENT_MAX_STEPS=3\)/);
  });
});

describe(outcomeOf.name, () => {
  it.each([
    ['All done.', 'success', 'All done.'],
    ['OUTCOME: partial\nTwo of three pages read.', 'partial', 'Two of three pages read.'],
    ['  outcome: FAIL\n\nThe site was down.', 'fail', 'The site was down.'],
    ['OUTCOME: success', 'success', ''],
    ['The OUTCOME: fail is not on the first line', 'success', 'The OUTCOME: fail is not on the first line'],
  ])('%j is %s', (text, outcome, rest) => {
    expect(outcomeOf(text)).toEqual({ outcome, text: rest });
  });
});
