import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MeResponse } from '@aas/contracts';
import { ConflictError, ResourceNotFoundError } from '@aas/problem-details';
import { Repository } from 'typeorm';
import { UserEntity } from './user.entity';

@Injectable()
export class UsersService {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  async me(userId: string): Promise<MeResponse> {
    const user = await this.users.findOneBy({ id: userId });
    if (!user) throw new ResourceNotFoundError('User', userId);
    return { user_id: user.id, needs_onboarding: user.onboardedAt === null };
  }

  /** Returns the user with this email, creating it if needed; safe when several processes race. */
  async ensureUser(email: string): Promise<UserEntity> {
    const normalized = email.trim().toLowerCase();
    await this.users
      .createQueryBuilder()
      .insert()
      .values({ email: normalized })
      .orIgnore()
      .execute();
    return this.users.findOneByOrFail({ email: normalized });
  }

  async createUser(email: string): Promise<UserEntity> {
    const normalized = email.trim().toLowerCase();
    const inserted = await this.users.createQueryBuilder().insert().values({ email: normalized }).orIgnore().returning('id').execute();
    if (inserted.raw.length === 0) throw new ConflictError(`A user with email ${normalized} already exists`);
    return this.users.findOneByOrFail({ email: normalized });
  }

  async findById(userId: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ id: userId });
  }
}
