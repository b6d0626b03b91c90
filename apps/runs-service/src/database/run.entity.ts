import { ToolIcon } from '@aas/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'runs' })
export class RunEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  /** The generation of the agent (OwnedAgent); null for runs accepted before generations existed. */
  @Column({ name: 'agent_generation', type: 'bigint', nullable: true })
  agentGeneration!: string | null;

  @Column({ name: 'user_email', type: 'text', nullable: true })
  userEmail!: string | null;

  @Column({ name: 'run_number', type: 'integer' })
  runNumber!: number;

  @Column({ name: 'run_mode', type: 'text' })
  runMode!: 'build' | 'run';

  @Column({ name: 'run_kind', type: 'text' })
  runKind!: string;

  @Column({ name: 'trigger_kind', type: 'text' })
  triggerKind!: string;

  @Column({ type: 'text' })
  status!: string;

  @Column({ type: 'text', nullable: true })
  outcome!: string | null;

  @Column({ name: 'is_finished', type: 'boolean' })
  isFinished!: boolean;

  @Column({ name: 'is_paused', type: 'boolean' })
  isPaused!: boolean;

  @Column({ name: 'has_pending_input', type: 'boolean' })
  hasPendingInput!: boolean;

  @Column({ type: 'text', nullable: true })
  goal!: string | null;

  @Column({ name: 'policy_model', type: 'text', nullable: true })
  policyModel!: string | null;

  @Column({ name: 'policy_type', type: 'text', nullable: true })
  policyType!: string | null;

  @Column({ name: 'schedule_agent_id', type: 'text', nullable: true })
  scheduleAgentId!: string | null;

  @Column({ name: 'webhook_subscription_id', type: 'text', nullable: true })
  webhookSubscriptionId!: string | null;

  /** The trigger (webhook or event) that started the run. */
  @Column({ name: 'trigger_id', type: 'uuid', nullable: true })
  triggerId!: string | null;

  /** Event-trigger hops from the run that started the chain (0: not started by an event trigger). */
  @Column({ name: 'trigger_depth', type: 'integer' })
  triggerDepth!: number;

  /**
   * The run at the root of the chain of triggered runs this run continues (an event trigger's, or an
   * inbound call this installation's webhook made); null: the run starts its own chain.
   */
  @Column({ name: 'chain_root_id', type: 'uuid', nullable: true })
  chainRootId!: string | null;

  /** A triggered run's payload, headers and source run, sent to the runtime in the dispatch. */
  @Column({ name: 'trigger_data', type: 'jsonb', nullable: true })
  triggerData!: object | null;

  /** The fire time a schedule's run (or a backfill's) stands for: at most one run per agent and fire time. */
  @Column({ name: 'scheduled_for', type: 'timestamptz', nullable: true })
  scheduledFor!: Date | null;

  @Column({ name: 'wrote_instructions', type: 'boolean' })
  wroteInstructions!: boolean;

  @Column({ type: 'text', nullable: true })
  summary!: string | null;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  @Column({ name: 'event_count', type: 'bigint' })
  eventCount!: string;

  @Column({ name: 'event_bytes', type: 'bigint' })
  eventBytes!: string;

  @Column({ name: 'step_count', type: 'bigint' })
  stepCount!: string;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ name: 'last_event_at', type: 'timestamptz' })
  lastEventAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;

  /** When the run was admitted for execution (queued for a worker); null while it waits (admission/). */
  @Column({ name: 'admitted_at', type: 'timestamptz', nullable: true })
  admittedAt!: Date | null;

  /** Suspended on an input request (docs/input-requests.md): not executing, so not counted by admission. */
  @Column({ name: 'awaiting_input', type: 'boolean', default: false })
  awaitingInput!: boolean;

  /** Tokens the runtime's `usage` lines reported (docs/runtime-protocol.md), and how many lines. */
  @Column({ name: 'input_tokens', type: 'bigint', default: 0 })
  inputTokens!: string;

  @Column({ name: 'output_tokens', type: 'bigint', default: 0 })
  outputTokens!: string;

  @Column({ name: 'model_calls', type: 'integer', default: 0 })
  modelCalls!: number;

  /** What the usage cost by CREDIT_PRICES, in millionths of a credit; null until the first `usage` line. */
  @Column({ name: 'credit_millionths', type: 'bigint', nullable: true })
  creditMillionths!: string | null;

  @Column({ name: 'tool_call_count', type: 'integer', default: 0 })
  toolCallCount!: number;

  /** One entry per distinct tool the run's `tool_call` lines used, in the order first used. */
  @Column({ name: 'tool_icons', type: 'jsonb', default: () => "'[]'::jsonb" })
  toolIcons!: ToolIcon[];

  /** The agent's instructions version the run was dispatched with; null before it starts or without instructions. */
  @Column({ name: 'instructions_version_id', type: 'bigint', nullable: true })
  instructionsVersionId!: string | null;

  /** The run this run replays (POST …/runs/{run_id}/replay); null for other runs. */
  @Column({ name: 'replay_of', type: 'uuid', nullable: true })
  replayOf!: string | null;

  /** A replay of its origin's version: the instructions version it is dispatched with; null: the agent's current ones. */
  @Column({ name: 'pinned_instructions_version_id', type: 'bigint', nullable: true })
  pinnedInstructionsVersionId!: string | null;

  /** An event-triggered run: the run whose end fired the trigger (its trigger_data's source_run). */
  @Column({ name: 'source_run_id', type: 'uuid', nullable: true })
  sourceRunId!: string | null;
}
