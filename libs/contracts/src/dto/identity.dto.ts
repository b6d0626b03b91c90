import { ApiProperty } from '@nestjs/swagger';

export class MeResponse {
  @ApiProperty({ format: 'uuid' })
  user_id!: string;

  @ApiProperty({ description: 'True until the user has created their first agent' })
  needs_onboarding!: boolean;
}
