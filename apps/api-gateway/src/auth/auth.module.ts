import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApiKeyGuard } from './api-key.guard';

@Module({
  providers: [ApiKeyAuthenticator, { provide: APP_GUARD, useClass: ApiKeyGuard }],
})
export class AuthModule {}
