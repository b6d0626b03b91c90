import { Module } from '@nestjs/common';
import { StoresModule } from '../stores.module';
import { IdentityHandlers } from './identity.handlers';
import { UsersService } from './users.service';

@Module({
  imports: [StoresModule],
  controllers: [IdentityHandlers],
  providers: [UsersService],
  exports: [UsersService],
})
export class UsersModule {}
