import { EXHAUSTED_CHAIN_MEMORY_MS, ExhaustedChains } from './exhausted-chains';

const REFUSAL = { type: 'urn:aas:problem:quota-exceeded', title: 'Unprocessable Entity', status: 422, detail: 'full', quota: 'trigger_chain_runs', limit: 5 };

describe(ExhaustedChains.name, () => {
  it('answers a remembered refusal until the memory lapses, and nothing for other chains', () => {
    const sut = new ExhaustedChains();
    sut.remember('root-1', REFUSAL, 1000);
    expect(sut.refusalOf('root-1', 1000 + EXHAUSTED_CHAIN_MEMORY_MS - 1)).toBe(REFUSAL);
    expect(sut.refusalOf('root-2', 1000)).toBeUndefined();
    expect(sut.refusalOf('root-1', 1000 + EXHAUSTED_CHAIN_MEMORY_MS)).toBeUndefined();
  });

  it('keeps at most 10,000 chains, forgetting the oldest', () => {
    const sut = new ExhaustedChains();
    for (let i = 0; i <= 10_000; i++) sut.remember(`root-${i}`, REFUSAL, 0);
    expect(sut.refusalOf('root-0', 1)).toBeUndefined();
    expect(sut.refusalOf('root-1', 1)).toBe(REFUSAL);
    expect(sut.refusalOf('root-10000', 1)).toBe(REFUSAL);
  });
});
