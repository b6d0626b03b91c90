import { RunInstructions } from '@aas/contracts';
import { plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';

/**
 * Why agents-service would refuse the instructions of an `instructions` line (their size and form, as
 * PutInstructionsRequest checks them), or undefined. Checked when the line is recorded, so the run ends
 * in error as it did when they were written by request; the agent's quota is checked by agents-service.
 */
export function instructionsRefusal(content: string, planSteps: unknown[] | null): string | undefined {
  const instructions = plainToInstance(RunInstructions, planSteps === null ? { content } : { content, plan_steps: planSteps });
  const [first] = validateSync(instructions, { forbidUnknownValues: false });
  return first && describe(first);
}

function describe(error: ValidationError, path = ''): string {
  const at = path ? `${path}.${error.property}` : error.property;
  if (error.constraints) return Object.values(error.constraints)[0].replace(error.property, at);
  return error.children?.length ? describe(error.children[0], at) : `${at} is not valid`;
}
