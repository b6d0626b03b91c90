import { InstructionVersion, InstructionsSummary } from '@aas/contracts';
import { InstructionsEntity } from '../database/instructions.entity';
import { ListedInstructionVersion } from './instruction.store';

/** Content lives in PostgreSQL; the storage key names the version it came from. */
export function storageKeyOf(agentId: string, versionId: string): string {
  return `agents/${agentId}/instructions/${versionId}`;
}

export function toInstructionsSummary(
  instructions: InstructionsEntity,
  owner: { userId: string; email: string },
): InstructionsSummary {
  const summary: InstructionsSummary = {
    agent_id: instructions.agentId,
    user_id: owner.userId,
    user_email: owner.email,
    content: instructions.content,
    source_id: instructions.sourceId,
    updated_at: instructions.updatedAt.toISOString(),
    storage_key: storageKeyOf(instructions.agentId, instructions.versionId),
    content_hash: instructions.contentHash,
  };
  if (instructions.planSteps) summary.plan_steps = instructions.planSteps;
  return summary;
}

export function toInstructionVersion(version: ListedInstructionVersion): InstructionVersion {
  return {
    id: Number(version.id),
    content: version.content,
    source_type: version.sourceType,
    source_id: version.sourceId,
    created_at: version.createdAt.toISOString(),
    storage_key: storageKeyOf(version.agentId, version.id),
    content_hash: version.contentHash,
  };
}
