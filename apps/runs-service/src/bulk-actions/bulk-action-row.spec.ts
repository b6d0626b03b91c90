import { toBulkActionDto } from './bulk-action-row';

describe(toBulkActionDto.name, () => {
  const row = {
    id: '00000000-0000-4000-8000-000000000001',
    user_id: '00000000-0000-4000-8000-000000000002',
    action: 'cancel' as const,
    filter: { filter_status: 'in_progress' },
    instructions: null,
    status: 'running' as const,
    matched: 10,
    done: 3,
    failed: 1,
    skipped: 2,
    chunk: 1,
    created_at: new Date('2026-11-28T01:00:00Z'),
    started_at: new Date('2026-11-28T01:00:01Z'),
    finished_at: null,
  };

  it('counts the runs not yet reached, with timestamps in ISO 8601 and absent ones null', () => {
    expect(toBulkActionDto(row)).toMatchObject({
      pending: 4,
      created_at: '2026-11-28T01:00:00.000Z',
      started_at: '2026-11-28T01:00:01.000Z',
      finished_at: null,
      instructions: null,
    });
  });

  it("gives a replay its instructions, original when none were stored", () => {
    expect(toBulkActionDto({ ...row, action: 'replay' }).instructions).toBe('original');
    expect(toBulkActionDto({ ...row, action: 'replay', instructions: 'current' }).instructions).toBe('current');
  });
});
