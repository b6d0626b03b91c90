import { ConflictError, ResourceNotFoundError } from '@aas/problem-details';
import { randomUUID } from 'node:crypto';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { FakeUserStore } from './user.store.fake';
import { UsersService } from './users.service';

describe(UsersService.name, () => {
  function setup() {
    const db = new InMemoryDatabase();
    return { sut: new UsersService(new FakeUserStore(db)), db };
  }

  it('creates a user by its normalized email, and refuses the same email again with a 409', async () => {
    const { sut, db } = setup();
    const user = await sut.createUser('  Ada@Example.TEST ');
    expect(user.email).toBe('ada@example.test');
    await expect(sut.createUser('ada@example.test')).rejects.toBeInstanceOf(ConflictError);
    expect(db.tables.users).toHaveLength(1);
  });

  it('ensureUser answers the existing user, or creates it', async () => {
    const { sut, db } = setup();
    const made = await sut.ensureUser('admin@localhost');
    expect((await sut.ensureUser(' ADMIN@localhost')).id).toBe(made.id);
    expect(db.tables.users).toHaveLength(1);
  });

  it('needs onboarding until the user has an agent; an unknown user is a 404', async () => {
    const { sut, db } = setup();
    const user = db.addUser();
    expect(await sut.me(user.id)).toEqual({ user_id: user.id, needs_onboarding: true });
    user.onboardedAt = new Date();
    expect(await sut.me(user.id)).toEqual({ user_id: user.id, needs_onboarding: false });
    await expect(sut.me(randomUUID())).rejects.toBeInstanceOf(ResourceNotFoundError);
  });
});
