import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { UserEntity } from '../database/user.entity';
import { UserStore } from './user.store';

/** The user store on PostgreSQL, through TypeORM's entity API. */
@Injectable()
export class PostgresUserStore extends UserStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  findById(userId: string): Promise<UserEntity | null> {
    return this.dataSource.manager.findOneBy(UserEntity, { id: userId });
  }

  getByEmail(email: string): Promise<UserEntity> {
    return this.dataSource.manager.findOneByOrFail(UserEntity, { email });
  }

  async insertIfAbsent(email: string): Promise<boolean> {
    const inserted = await this.dataSource.manager
      .createQueryBuilder()
      .insert()
      .into(UserEntity)
      .values({ email })
      .orIgnore()
      .returning('id')
      .execute();
    return inserted.raw.length > 0;
  }
}
