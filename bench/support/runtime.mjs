// The agent runtime (apps/agent-runtime) as a process of its own for the runtime benchmarks, and a
// fake OpenAI-compatible model for it to call: no real model is reachable from a benchmark.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const { NODE_FLAGS, RUNTIME_APP, entry, ensureBuilt } = require('../../scripts/apps.js');

/** Starts the compiled runtime on `port` and waits for its /readyz. */
export async function startRuntime({ port, env = {} }) {
  ensureBuilt();
  // BENCH_CPU_PROF, as for the other apps (support/system.mjs).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/${RUNTIME_APP}`] : [];
  const child = spawn(process.execPath, [...NODE_FLAGS, ...profile, entry(RUNTIME_APP)], {
    env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const kill = () => child.exitCode === null && child.kill('SIGKILL');
  process.once('exit', kill);
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  while (!(await fetch(`${url}/readyz`).then((r) => r.ok, () => false))) {
    if (Date.now() > until || child.exitCode !== null) throw new Error('the agent runtime did not become ready');
    await sleep(200);
  }
  return {
    url,
    pid: child.pid,
    async stop() {
      process.off('exit', kill);
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** Resident memory of a process, in MB (Linux /proc; NaN elsewhere). */
export function rssMb(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    return kb / 1024;
  } catch {
    return NaN;
  }
}

/**
 * An OpenAI-compatible chat completions server. `reply(body)` says what to answer a request:
 * `{ text }` or `{ toolCall: { name, arguments } }`, after `delayMs`. With `held`, nothing is
 * answered before `release()`: requests that came earlier are answered `delayMs` after it (so every
 * run can be waiting on the model at once, however long starting them took). Answers are streamed
 * (SSE) when asked, with usage. Counts requests received, in flight and answered.
 */
export async function startFakeModel(reply, delayMs = 0, { held = false } = {}) {
  const stats = { received: 0, inFlight: 0, answered: 0, firstAnsweredAt: undefined };
  let waiting = held ? [] : undefined;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      stats.received += 1;
      stats.inFlight += 1;
      const answer = () => {
        stats.inFlight -= 1;
        if (res.destroyed) return;
        stats.answered += 1;
        stats.firstAnsweredAt ??= Date.now();
        send(res, body, reply(body));
      };
      if (waiting) waiting.push(answer);
      else if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    stats,
    release() {
      const queued = waiting ?? [];
      waiting = undefined;
      for (const answer of queued) setTimeout(answer, delayMs);
    },
    close: () => (server.closeAllConnections(), new Promise((resolve) => server.close(resolve))),
  };
}

function send(res, body, { text, toolCall }) {
  const usage = { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 };
  const call = toolCall && { index: 0, id: `call_${Math.random().toString(36).slice(2)}`, type: 'function', function: { name: toolCall.name, arguments: JSON.stringify(toolCall.arguments) } };
  const finish = call ? 'tool_calls' : 'stop';
  if (!body.stream) {
    const message = { role: 'assistant', content: text ?? null, ...(call ? { tool_calls: [{ ...call, index: undefined }] } : {}) };
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
  }
  const chunk = (choices, extra = {}) => `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model: body.model, choices, ...extra })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(chunk([{ index: 0, delta: { role: 'assistant', content: text ?? '' }, finish_reason: null }]));
  if (call) res.write(chunk([{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }]));
  res.write(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
  res.end(chunk([], { usage }) + 'data: [DONE]\n\n');
}
