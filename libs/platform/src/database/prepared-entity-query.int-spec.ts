import 'reflect-metadata';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { ensureDatabase } from './migrate';
import { PreparedEntityQuery } from './prepared-entity-query';

@Entity({ schema: 'prepared_test', name: 'things' })
class ThingEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId!: string;

  @Column({ type: 'bigint' })
  seq!: string;

  @Column({ name: 'is_done', type: 'boolean' })
  isDone!: boolean;

  @Column({ type: 'text', nullable: true })
  label!: string | null;

  @Column({ name: 'happened_at', type: 'timestamptz', nullable: true })
  happenedAt!: Date | null;

  @Column({ type: 'jsonb', nullable: true })
  settings!: Record<string, unknown> | null;

  @Column({ type: 'text', array: true })
  tags!: string[];

  @Column({ type: 'integer', transformer: { to: (cents: number) => cents * 100, from: (raw: number) => raw / 100 } })
  amount!: number;
}

const infra = isolatedInfra();
const ONE = '00000000-0000-4000-8000-000000000001';
const TWO = '00000000-0000-4000-8000-000000000002';
const OWNER = '00000000-0000-4000-8000-0000000000aa';

describe('PreparedEntityQuery (PostgreSQL)', () => {
  let dataSource: DataSource;
  let byOwnerAndId: PreparedEntityQuery<ThingEntity>;

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    dataSource = new DataSource({ type: 'postgres', url: infra.databaseUrl, entities: [ThingEntity], extra: { max: 2 } });
    await dataSource.initialize();
    await dataSource.query('CREATE SCHEMA prepared_test');
    await dataSource.synchronize();
    const repo = dataSource.getRepository(ThingEntity);
    await repo.insert([
      {
        id: ONE,
        ownerId: OWNER,
        seq: '9007199254740993',
        isDone: true,
        label: 'ünïcode ✓',
        happenedAt: new Date('2026-11-23T01:02:03.456Z'),
        settings: { nested: [1, 'two', null] },
        tags: ['a', 'b'],
        amount: 12.34,
      },
      { id: TWO, ownerId: OWNER, seq: '2', isDone: false, label: null, happenedAt: null, settings: null, tags: [], amount: 0 },
    ]);
    byOwnerAndId = new PreparedEntityQuery(dataSource, ThingEntity, 'test.thing-by-owner', 'id = $1 AND owner_id = $2');
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await infra.dispose();
  });

  it.each([
    ['every column set', ONE],
    ['nullable columns null', TWO],
  ])('hydrates a row (%s) exactly as TypeORM does', async (_label, id) => {
    const expected = await dataSource.manager.findOneByOrFail(ThingEntity, { id, ownerId: OWNER });
    const found = await byOwnerAndId.one([id, OWNER]);
    expect(found).toBeInstanceOf(ThingEntity);
    expect(found).toEqual(expected);
  });

  it('answers null when no row matches, and keeps answering after its statement was prepared', async () => {
    await expect(byOwnerAndId.one([ONE, ONE])).resolves.toBeNull();
    for (let i = 0; i < 5; i++) await expect(byOwnerAndId.one([TWO, OWNER])).resolves.toMatchObject({ id: TWO });
  });
});
