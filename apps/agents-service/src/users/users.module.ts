import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdentityHandlers } from './identity.handlers';
import { UserEntity } from './user.entity';
import { UsersService } from './users.service';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity])],
  controllers: [IdentityHandlers],
  providers: [UsersService],
  exports: [UsersService],
})
export class UsersModule {}
