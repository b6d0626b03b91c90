import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConsoleSessionsService } from './console-sessions.service';

const PURGE_EVERY_MS = 10 * 60_000;

/** Deletes expired sessions and setup tokens now and then (they are refused when expired anyway). */
@Injectable()
export class ConsoleSessionPurger implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ConsoleSessionPurger.name);
  private timer?: NodeJS.Timeout;

  constructor(private readonly sessions: ConsoleSessionsService) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private async purge(): Promise<void> {
    try {
      await this.sessions.purgeExpired();
    } catch (error) {
      // Tried again on the next tick.
      this.logger.warn(`console session purge failed: ${(error as Error).message}`);
    }
  }
}
