import { ApiProperty } from '@nestjs/swagger';

/** `{success, error}`: operations that report their outcome in the body (spec section 7.7). */
export class SuccessResponse {
  @ApiProperty()
  success!: boolean;

  @ApiProperty({ type: 'string', nullable: true, description: 'Null on success; why it did not succeed otherwise' })
  error!: string | null;
}
