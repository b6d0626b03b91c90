import { BaseRpcContext } from '@nestjs/microservices';
import { RpcMetadata } from './rpc-message';

export class StreamsRpcContext extends BaseRpcContext<[string, RpcMetadata]> {
  getPattern(): string {
    return this.args[0];
  }

  getMetadata(): RpcMetadata {
    return this.args[1];
  }
}
