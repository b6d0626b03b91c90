import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AccessAnnouncer } from '../common/access-announcer';
import { StoresModule } from '../stores.module';
import { ConsoleSessionPurger } from './console-session.purger';
import { ConsoleSessionsHandlers } from './console-sessions.handlers';
import { ConsoleSessionsService } from './console-sessions.service';

@Module({
  imports: [StoresModule, ApiKeysModule],
  controllers: [ConsoleSessionsHandlers],
  providers: [ConsoleSessionsService, ConsoleSessionPurger, AccessAnnouncer],
  exports: [ConsoleSessionsService],
})
export class ConsoleSessionsModule {}

/** What the admin command line needs: the service, without message handlers or the purge timer. */
@Module({ imports: [StoresModule, ApiKeysModule], providers: [ConsoleSessionsService, AccessAnnouncer], exports: [ConsoleSessionsService] })
export class ConsoleSessionsAdminModule {}
