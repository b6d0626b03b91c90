import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AccessAnnouncer } from '../common/access-announcer';
import { DatabaseModule } from '../database/database.module';
import { ConsoleSessionPurger } from './console-session.purger';
import { ConsoleSessionStore } from './console-session.store';
import { ConsoleSessionsHandlers } from './console-sessions.handlers';
import { ConsoleSessionsService } from './console-sessions.service';
import { PostgresConsoleSessionStore } from './postgres-console-session.store';

const STORE = { provide: ConsoleSessionStore, useClass: PostgresConsoleSessionStore };

@Module({
  imports: [DatabaseModule, ApiKeysModule],
  controllers: [ConsoleSessionsHandlers],
  providers: [ConsoleSessionsService, ConsoleSessionPurger, AccessAnnouncer, STORE],
  exports: [ConsoleSessionsService],
})
export class ConsoleSessionsModule {}

/** What the admin command line needs: the service, without message handlers or the purge timer. */
@Module({ imports: [DatabaseModule, ApiKeysModule], providers: [ConsoleSessionsService, AccessAnnouncer, STORE], exports: [ConsoleSessionsService] })
export class ConsoleSessionsAdminModule {}
