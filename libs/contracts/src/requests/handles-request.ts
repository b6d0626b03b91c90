import { MessagePattern } from '@nestjs/microservices';
import { RequestAnswer, RequestMessage, RequestPattern } from './request-registry';

type RequestHandler<P extends RequestPattern> = (message: RequestMessage<P>) => RequestAnswer<P> | Promise<RequestAnswer<P>>;

/**
 * `@MessagePattern`, checked against the request registry: the method must take the pattern's message
 * and answer its answer, or the handler does not compile.
 */
export function HandlesRequest<P extends RequestPattern>(pattern: P) {
  return <H extends RequestHandler<P>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<H>): void => {
    MessagePattern(pattern)(target, key, descriptor);
  };
}
