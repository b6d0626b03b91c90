import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { IdentityHandlers } from './identity.handlers';
import { PostgresUserStore } from './postgres-user.store';
import { UserStore } from './user.store';
import { UsersService } from './users.service';

const STORE = { provide: UserStore, useClass: PostgresUserStore };

@Module({
  imports: [DatabaseModule],
  controllers: [IdentityHandlers],
  providers: [UsersService, STORE],
  exports: [UsersService, STORE],
})
export class UsersModule {}
