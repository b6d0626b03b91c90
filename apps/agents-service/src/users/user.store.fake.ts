import { InMemoryDatabase, UserRow } from '../database/in-memory-database.fake';
import { UserEntity } from '../database/user.entity';
import { UserStore } from './user.store';

export class FakeUserStore implements UserStore {
  constructor(private readonly db: InMemoryDatabase) {}

  async findById(userId: string): Promise<UserEntity | null> {
    const user = this.db.tables.users.find((u) => u.id === userId);
    return user ? entity(user) : null;
  }

  async getByEmail(email: string): Promise<UserEntity> {
    const user = this.db.tables.users.find((u) => u.email === email);
    if (!user) throw new Error(`no user with email ${email}`);
    return entity(user);
  }

  async insertIfAbsent(email: string): Promise<boolean> {
    if (this.db.tables.users.some((u) => u.email === email)) return false;
    this.db.addUser(email);
    return true;
  }
}

/** As TypeORM loads it: without the password hash (select: false). */
function entity(user: UserRow): UserEntity {
  return { id: user.id, email: user.email, createdAt: user.createdAt, onboardedAt: user.onboardedAt } as UserEntity;
}
