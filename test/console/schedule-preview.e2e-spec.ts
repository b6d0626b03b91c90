import { expectProblem, http } from '../support/http';
import { TestSystem } from '../support/test-system';
import { User, freshUser } from '../support/test-users';

/** POST /v1/schedules/preview: the console's cron editor shows the next fires as the user types. */
describe('Schedule preview', () => {
  let system: TestSystem;
  let base: string;
  let user: User;

  beforeAll(async () => {
    system = await TestSystem.start({ gatewayEnv: { RATE_LIMIT_REQUESTS: '8', RATE_LIMIT_WINDOW_SECONDS: '60' } });
    base = system.url();
    user = await freshUser(system, 'preview');
  });
  afterAll(() => system.stop());

  it('lists the next 5 fire times in the timezone given, and changes nothing', async () => {
    const utc = await http(base, 'POST', '/v1/schedules/preview', { key: user.key, body: { cron: '0 30 9 ? * MON-FRI *' } });
    expect(utc.status).toBe(200);
    expect(utc.body.upcoming).toHaveLength(5);
    const times = utc.body.upcoming.map((ms: number) => new Date(ms));
    for (const time of times) {
      expect(time.getTime()).toBeGreaterThan(Date.now());
      expect([time.getUTCHours(), time.getUTCMinutes(), time.getUTCSeconds()]).toEqual([9, 30, 0]);
      expect([0, 6]).not.toContain(time.getUTCDay());
    }
    expect([...utc.body.upcoming].sort((a: number, b: number) => a - b)).toEqual(utc.body.upcoming);

    const tokyo = await http(base, 'POST', '/v1/schedules/preview', { key: user.key, body: { cron: '0 30 9 ? * MON-FRI *', timezone: 'Asia/Tokyo' } });
    // Tokyo has no daylight saving: 09:30 there is 00:30 UTC.
    for (const ms of tokyo.body.upcoming) expect([new Date(ms).getUTCHours(), new Date(ms).getUTCMinutes()]).toEqual([0, 30]);
    expect((await http(base, 'GET', '/v1/schedules', { key: user.key })).body.schedules).toEqual([]);
  });

  it('answers a bad expression or timezone with a 400 whose detail says why', async () => {
    const fiveFields = await http(base, 'POST', '/v1/schedules/preview', { key: user.key, body: { cron: '*/5 * * * *' } });
    expectProblem(fiveFields, 400);
    expect(fiveFields.body.detail).toMatch(/7 fields/);
    const zone = await http(base, 'POST', '/v1/schedules/preview', { key: user.key, body: { cron: '0 0 * * * ? *', timezone: 'Mars/Olympus' } });
    expectProblem(zone, 400);
    expect(zone.body.errors).toEqual([expect.objectContaining({ field: 'timezone' })]);
    expectProblem(await http(base, 'POST', '/v1/schedules/preview', { key: user.key, body: { cron: '0 0 0 1 1 ? 2001' } }), 400);
    expectProblem(await http(base, 'POST', '/v1/schedules/preview', { key: user.key, body: {} }), 400);
  });

  it('needs a key, and one user over the rate limit does not hold back another', async () => {
    expectProblem(await http(base, 'POST', '/v1/schedules/preview', { body: { cron: '0 0 * * * ? *' } }), 401);
    const greedy = await freshUser(system, 'greedy');
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) answers.push((await http(base, 'POST', '/v1/schedules/preview', { key: greedy.key, body: { cron: '0 0 * * * ? *' } })).status);
    expect(answers.slice(0, 8)).toEqual(Array(8).fill(200));
    expect(answers.slice(8)).toEqual([429, 429]);
    const other = await freshUser(system, 'patient');
    expect((await http(base, 'POST', '/v1/schedules/preview', { key: other.key, body: { cron: '0 0 * * * ? *' } })).status).toBe(200);
  });
});
