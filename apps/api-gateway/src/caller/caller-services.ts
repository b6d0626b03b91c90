import { Injectable } from '@nestjs/common';
import { RequestAnswer, RequestMessage, RequestPattern } from '@aas/contracts';
import { JsonBody, ServiceClient } from '@aas/platform';
import { Caller } from './caller';

/** The patterns whose message names the user it acts for. */
export type UserScopedPattern = { [P in RequestPattern]: RequestMessage<P> extends { user_id: string } ? P : never }[RequestPattern];

/** A user-scoped message without its user: the caller supplies it. */
export type CallerMessage<P extends UserScopedPattern> = Omit<RequestMessage<P>, 'user_id'>;

/**
 * Requests to the services on behalf of a caller: its user id goes into every message and its request
 * id along with it, so no route threads either by hand.
 */
@Injectable()
export class CallerServices {
  constructor(private readonly services: ServiceClient) {}

  request<P extends UserScopedPattern>(caller: Caller, pattern: P, message: CallerMessage<P>): Promise<RequestAnswer<P>> {
    return this.services.request(pattern, withUser(caller, message), caller.requestId);
  }

  /** The answer as the service's JSON text, for a route that relays it (ServiceClient.requestJson). */
  requestJson<P extends UserScopedPattern>(caller: Caller, pattern: P, message: CallerMessage<P>): Promise<JsonBody<RequestAnswer<P>>> {
    return this.services.requestJson(pattern, withUser(caller, message), caller.requestId);
  }
}

function withUser<P extends UserScopedPattern>(caller: Caller, message: CallerMessage<P>): RequestMessage<P> {
  return { ...message, user_id: caller.userId } as RequestMessage<P>;
}
