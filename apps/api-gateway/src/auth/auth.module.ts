import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ConsoleSessionAuthenticator } from '../console-auth/console-session-authenticator';
import { LoginRateLimiter } from '../console-auth/login-rate-limiter';
import { InstallationDeliveries } from '../rate-limit/installation-deliveries';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard';
import { RequestRateLimits } from '../rate-limit/request-rate-limits';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApiKeyGuard } from './api-key.guard';
import { RevocationFeed } from './revocation-feed';
import { RevocationState } from './revocation-state';

/** Global guards run in the order given: who is calling first, then that caller's (or its address's) rate limit. */
@Module({
  exports: [ConsoleSessionAuthenticator, LoginRateLimiter, RequestRateLimits, RevocationState, ApiKeyAuthenticator],
  providers: [
    ApiKeyAuthenticator,
    RevocationFeed,
    { provide: RevocationState, useExisting: RevocationFeed },
    RequestRateLimits,
    InstallationDeliveries,
    ConsoleSessionAuthenticator,
    LoginRateLimiter,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
})
export class AuthModule {}
