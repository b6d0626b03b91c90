/**
 * The endpoint gate's two Lua scripts. Each takes a batch of deliveries, three keys per delivery: its
 * webhook's leases (a sorted set of lease id → expiry), its user's leases, and its webhook's circuit (a
 * hash). Redis runs a script alone, so no two workers can both take the last slot or both become the
 * probe. Time is Redis's (TIME), so the workers' clocks do not matter.
 *
 * Circuit hash fields: `failures` (failed attempts in a row while closed), `reopen_at` (set while the
 * circuit is open: no attempt before it; once past, the circuit is half-open), `opens` (times it opened
 * without closing, which picks the cool-down), `probe` and `probe_until` (the one half-open attempt's
 * lease). No hash: closed, no failures.
 */

/** Verdicts of ADMIT, in the order it checks them. */
export enum AdmitVerdict {
  Admitted = 0,
  AdmittedAsProbe = 1,
  CircuitOpen = 2,
  ProbeInFlight = 3,
  EndpointBusy = 4,
  UserBusy = 5,
}

/**
 * Admits each delivery that its circuit lets through and that finds a free slot of its webhook and of its
 * user, taking a lease on both (and the probe, when its circuit is half-open).
 * ARGV: lease ms, webhook limit, user limit (0: no limit), whether circuits are on (1 or 0: a circuit
 * left from before they were turned off is ignored), then the lease id of each delivery.
 * Answers two numbers per delivery: its AdmitVerdict, and for CircuitOpen and ProbeInFlight the ms until
 * that ends; for EndpointBusy and UserBusy how long the median slot of the full set has been held (how
 * fast its slots turn over: milliseconds for a quick receiver, seconds for one that hangs).
 */
export const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease, endpointLimit, userLimit, circuits = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local swept = {}
local function full(key, limit)
  if not swept[key] then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    swept[key] = true
  end
  return redis.call('ZCARD', key) >= limit
end
-- Leases all last as long, so by expiry the set is oldest first.
local function medianHeld(key)
  local held = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local middle = math.floor((#held / 2 - 1) / 2) + 1
  return math.max(0, now - (tonumber(held[2 * middle]) - lease))
end
local function hold(key, id)
  redis.call('ZADD', key, now + lease, id)
  redis.call('PEXPIRE', key, lease)
end
local answer = {}
for i = 1, #KEYS / 3 do
  local endpoint, user, circuit, id = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i], ARGV[4 + i]
  local reopen, probeUntil
  if circuits then
    local state = redis.call('HMGET', circuit, 'reopen_at', 'probe_until')
    reopen, probeUntil = tonumber(state[1]), tonumber(state[2])
  end
  local verdict, wait = 0, 0
  if reopen and now < reopen then
    verdict, wait = 2, reopen - now
  elseif reopen and probeUntil and now < probeUntil then
    verdict, wait = 3, probeUntil - now
  elseif endpointLimit > 0 and full(endpoint, endpointLimit) then
    verdict, wait = 4, medianHeld(endpoint)
  elseif userLimit > 0 and full(user, userLimit) then
    verdict, wait = 5, medianHeld(user)
  else
    if endpointLimit > 0 then hold(endpoint, id) end
    if userLimit > 0 then hold(user, id) end
    if reopen then
      redis.call('HSET', circuit, 'probe', id, 'probe_until', now + lease)
      verdict = 1
    end
  end
  answer[2 * i - 1], answer[2 * i] = verdict, wait
end
return answer`;

/** What RELEASE did to a circuit. */
export enum CircuitChangeCode {
  None = 0,
  Opened = 1,
  Closed = 2,
}

/**
 * Gives back each delivery's leases and tells its circuit how the attempt went: an answer closes the
 * circuit (and forgets its failures); a failure while closed counts, and the threshold-th in a row opens
 * it; the probe's failure opens it again for the next cool-down. A failure of an attempt that began
 * before the circuit opened changes nothing (only the probe speaks for a half-open circuit).
 * ARGV: failure threshold (0: no circuit breaker), ms a circuit's state is kept after its last change,
 * the number n of cool-downs, the n cool-downs (the last repeats), then per delivery its lease id and
 * its endpoint's health ('answered' or 'failed').
 * Answers two numbers per delivery: its CircuitChangeCode, and the cool-down ms when it opened.
 */
export const RELEASE = `
local threshold, keep, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function open(circuit)
  local opens = redis.call('HINCRBY', circuit, 'opens', 1)
  local cooldown = tonumber(ARGV[3 + math.min(opens, n)])
  redis.call('HSET', circuit, 'reopen_at', now + cooldown)
  redis.call('HDEL', circuit, 'failures', 'probe', 'probe_until')
  return cooldown
end
local answer = {}
for i = 1, #KEYS / 3 do
  local endpoint, user, circuit = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local id, health = ARGV[2 + n + 2 * i], ARGV[3 + n + 2 * i]
  redis.call('ZREM', endpoint, id)
  redis.call('ZREM', user, id)
  local change, cooldown = 0, 0
  if threshold > 0 then
    local state = redis.call('HMGET', circuit, 'reopen_at', 'probe')
    if health == 'answered' then
      if redis.call('DEL', circuit) == 1 and state[1] then change = 2 end
    elseif state[1] then
      if state[2] == id then change, cooldown = 1, open(circuit) end
    elseif redis.call('HINCRBY', circuit, 'failures', 1) >= threshold then
      change, cooldown = 1, open(circuit)
    end
    if health == 'failed' then redis.call('PEXPIRE', circuit, math.max(keep, 2 * cooldown)) end
  end
  answer[2 * i - 1], answer[2 * i] = change, cooldown
end
return answer`;
