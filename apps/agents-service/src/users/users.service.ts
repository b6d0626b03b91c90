import { Injectable } from '@nestjs/common';
import { MeResponse } from '@aas/contracts';
import { ConflictError, ResourceNotFoundError } from '@aas/problem-details';
import { UserEntity } from '../database/user.entity';
import { UserStore } from './user.store';

@Injectable()
export class UsersService {
  constructor(private readonly users: UserStore) {}

  async me(userId: string): Promise<MeResponse> {
    const user = await this.users.findById(userId);
    if (!user) throw new ResourceNotFoundError('User', userId);
    return { user_id: user.id, needs_onboarding: user.onboardedAt === null };
  }

  /** Returns the user with this email, creating it if needed; safe when several processes race. */
  async ensureUser(email: string): Promise<UserEntity> {
    const normalized = email.trim().toLowerCase();
    await this.users.insertIfAbsent(normalized);
    return this.users.getByEmail(normalized);
  }

  async createUser(email: string): Promise<UserEntity> {
    const normalized = email.trim().toLowerCase();
    if (!(await this.users.insertIfAbsent(normalized))) throw new ConflictError(`A user with email ${normalized} already exists`);
    return this.users.getByEmail(normalized);
  }

  async findById(userId: string): Promise<UserEntity | null> {
    return this.users.findById(userId);
  }
}
