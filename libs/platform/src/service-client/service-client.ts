import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { RequestAnswer, RequestMessage, RequestPattern } from '@aas/contracts';
import { ProblemDetail, RemoteProblemError, isProblemDetail } from '@aas/problem-details';
import { RedisStreamsClient } from '@aas/transport';
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

  /** The message and the answer are the pattern's in the request registry. `requestId` defaults to the request the caller is handling, if any. */
  request<P extends RequestPattern>(pattern: P, payload: RequestMessage<P>, requestId?: string): Promise<RequestAnswer<P>> {
    return this.call<RequestAnswer<P>>(pattern, payload, requestId, false);
  }

  /**
   * The response as the service's JSON text, for a gateway route to send on as it is:
   * no parse and no serialisation of what it only relays. Errors as from `request`.
   */
  requestJson<P extends RequestPattern>(pattern: P, payload: RequestMessage<P>, requestId?: string): Promise<JsonBody<RequestAnswer<P>>> {
    return this.call<JsonBody<RequestAnswer<P>>>(pattern, payload, requestId, true);
  }

  private async call<TResult>(pattern: string, payload: unknown, requestId: string | undefined, asJson: boolean): Promise<TResult> {
    const metadata = { request_id: requestId ?? currentRequestId() };
    try {
      return await this.client.call<TResult>(pattern, payload, metadata, asJson);
    } catch (error) {
      if (isProblemDetail(error)) throw new RemoteProblemError(error as ProblemDetail);
      throw error;
    }
  }
}

/** A JSON document of type T, as text. */
export type JsonBody<T> = string & { readonly jsonOf?: T };
