import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ProblemDetail, RemoteProblemError, isProblemDetail } from '@aas/problem-details';
import { RedisStreamsClient } from '@aas/transport';
import { firstValueFrom } from 'rxjs';
import { currentRequestId } from '../request-context/request-context';

export const STREAMS_CLIENT = Symbol('STREAMS_CLIENT');

/** Request/response to the services behind the gateway; their Problem Details come back as RemoteProblemError. */
@Injectable()
export class ServiceClient implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(STREAMS_CLIENT) private readonly client: RedisStreamsClient) {}

  async onModuleInit(): Promise<void> {
    await this.client.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }

  /** `requestId` defaults to the request the caller is handling, if any. */
  async request<TResult>(pattern: string, payload: object, requestId?: string): Promise<TResult> {
    try {
      return await firstValueFrom(this.client.request<TResult>(pattern, payload, { request_id: requestId ?? currentRequestId() }), {
        defaultValue: null as TResult,
      });
    } catch (error) {
      if (isProblemDetail(error)) throw new RemoteProblemError(error as ProblemDetail);
      throw error;
    }
  }
}
