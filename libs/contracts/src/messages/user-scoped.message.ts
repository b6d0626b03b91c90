import { IsUUID } from 'class-validator';

/** Every message on behalf of a caller names the user the gateway resolved from the key. */
export class UserScopedMessage {
  @IsUUID()
  user_id!: string;
}
