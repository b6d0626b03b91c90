import { UserEntity } from '../database/user.entity';

/**
 * The `users` table as identity sees it: a user by id or email (postgres-user.store.ts; the console passwords
 * are console-session.store.ts's); an abstract class, so that it is the injection token and a fake can stand in for it.
 */
export abstract class UserStore {
  abstract findById(userId: string): Promise<UserEntity | null>;
  /** The user with this (normalized) email, which must exist. */
  abstract getByEmail(email: string): Promise<UserEntity>;
  /** A new user with this email; false, and nothing changed, when one has it already. */
  abstract insertIfAbsent(email: string): Promise<boolean>;
}
