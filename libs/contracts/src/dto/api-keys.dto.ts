import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { IsWellFormedText } from './text.validators';

export class CreateApiKeyRequest {
  @ApiProperty({ minLength: 1, maxLength: 128, example: 'ci-pipeline' })
  @IsString()
  @Length(1, 128)
  @IsWellFormedText()
  name!: string;
}

export class ApiKeyInfo {
  @ApiProperty({ format: 'uuid' })
  key_id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ description: 'The first characters of the key, enough to recognise it', example: 'aas_3kT9qZ' })
  display_prefix!: string;

  @ApiProperty({ type: 'integer', format: 'int64', description: 'Epoch milliseconds' })
  created_at!: number;

  @ApiProperty({ type: 'integer', format: 'int64', nullable: true, description: 'Epoch milliseconds; null when never used' })
  last_used_at!: number | null;
}

export class CreatedApiKey {
  @ApiProperty({ format: 'uuid' })
  key_id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ description: 'The full key. Shown only in this response; store it now.' })
  api_key!: string;

  @ApiProperty({ example: 'aas_3kT9qZ' })
  display_prefix!: string;

  @ApiProperty({ type: 'integer', format: 'int64', description: 'Epoch milliseconds' })
  created_at!: number;
}

export class ApiKeyList {
  @ApiProperty({ type: [ApiKeyInfo] })
  keys!: ApiKeyInfo[];
}

export class RevokeApiKeyResponse {
  @ApiProperty()
  revoked!: boolean;
}
