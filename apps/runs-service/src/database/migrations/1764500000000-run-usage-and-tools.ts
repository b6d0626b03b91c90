import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a runtime's version 2 lines record on the run (docs/runtime-protocol.md): the tokens of its
 * `usage` lines and their cost in millionths of a credit (null until the first one, so runs that
 * report no usage keep `credits_consumed` null), and the tools its `tool_call` lines used. Constant
 * defaults and a nullable column add no table rewrite.
 */
export class RunUsageAndTools1764500000000 implements MigrationInterface {
  name = 'RunUsageAndTools1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE runs
         ADD COLUMN input_tokens bigint NOT NULL DEFAULT 0,
         ADD COLUMN output_tokens bigint NOT NULL DEFAULT 0,
         ADD COLUMN model_calls integer NOT NULL DEFAULT 0,
         ADD COLUMN credit_millionths bigint,
         ADD COLUMN tool_call_count integer NOT NULL DEFAULT 0,
         ADD COLUMN tool_icons jsonb NOT NULL DEFAULT '[]'::jsonb`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE runs
         DROP COLUMN input_tokens, DROP COLUMN output_tokens, DROP COLUMN model_calls,
         DROP COLUMN credit_millionths, DROP COLUMN tool_call_count, DROP COLUMN tool_icons`,
    );
  }
}
