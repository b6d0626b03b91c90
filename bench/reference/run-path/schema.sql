-- The run path reference's tables (bench/reference/run-path/): what accepting, executing and
-- recording a run needs, in a database of its own.
CREATE TABLE api_keys (
  key_hash text PRIMARY KEY,
  user_id uuid NOT NULL,
  revoked_at timestamptz
);

CREATE TABLE agents (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL,
  plan_steps jsonb NOT NULL DEFAULT '[]',
  deployed_at timestamptz,
  run_counter bigint NOT NULL DEFAULT 0,
  latest_run_id uuid,
  latest_run_status text,
  latest_run_at timestamptz
);

CREATE TABLE runs (
  id uuid PRIMARY KEY,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  run_number bigint NOT NULL,
  run_mode text NOT NULL,
  run_kind text NOT NULL DEFAULT 'api',
  goal text,
  status text NOT NULL DEFAULT 'in_progress',
  is_finished boolean NOT NULL DEFAULT false,
  event_count bigint NOT NULL DEFAULT 0,
  event_bytes bigint NOT NULL DEFAULT 0,
  step_count bigint NOT NULL DEFAULT 0,
  outcome text,
  summary text,
  trigger_depth integer NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL,
  last_event_at timestamptz NOT NULL,
  finished_at timestamptz,
  UNIQUE (agent_id, run_number)
);

CREATE TABLE run_events (
  run_id uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  event_index bigint NOT NULL,
  recorded_at timestamptz NOT NULL,
  event jsonb NOT NULL,
  PRIMARY KEY (run_id, event_index)
);

-- Written in the transaction of the change it announces; relays publish it and delete it.
CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  topic text NOT NULL,
  payload jsonb NOT NULL
);
CREATE INDEX outbox_by_topic ON outbox (topic, id);

CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  events text[] NOT NULL
);
CREATE INDEX webhooks_by_agent ON webhooks (agent_id);

CREATE TABLE deliveries (
  id bigserial PRIMARY KEY,
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE event_triggers (
  id uuid PRIMARY KEY,
  source_agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  target_agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  events text[] NOT NULL
);
CREATE INDEX event_triggers_by_source ON event_triggers (source_agent_id);
