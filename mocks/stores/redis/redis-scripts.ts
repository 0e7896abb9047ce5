/**
 * The Lua scripts of the Redis store; each runs atomically in Redis, over the keys of one account (one slot of a
 * Redis Cluster) or of the global part (`redis-keys.ts`). Versions: each account and the global part have their
 * own, moved by one per change set; a caller names the version its copy holds, and a script that finds another
 * answers `stale` with the change sets it missed (or `reload` when the feed no longer reaches back so far).
 */

/** `stale(feed, version, known)`: the answer to a caller whose copy holds `known` while Redis holds `version`. */
const STALE = `
local function stale(feed, version, known)
  local behind = version - known
  if known > version or behind > redis.call('LLEN', feed) then return {'stale', version, 'reload'} end
  local out = {'stale', version, 'delta'}
  for _, entry in ipairs(redis.call('LRANGE', feed, -behind, -1)) do out[#out + 1] = entry end
  return out
end
`

/** Sets or deletes records of a hash from ARGV[at..]: `count` pairs of field and JSON ('' deletes). */
const WRITE = `
local function write(hash, at, count)
  for c = 0, count - 1 do
    local field, value = ARGV[at + 2 * c], ARGV[at + 2 * c + 1]
    if value == '' then redis.call('HDEL', hash, field) else redis.call('HSET', hash, field, value) end
  end
end
`

/**
 * Counts requests of one account in its rate-limit windows, exactly across processes, once the caller's copy
 * of the account is shown current. Answers:
 * - `{'busy', deadline}`: a global step is changing the account (try again, or recover after the deadline);
 * - `{'global', version}`: the caller's copy of the global part is older than one the account was used with;
 * - `stale(...)`: the caller's copy of the account is older: nothing counted;
 * - `{'ok', version, ...}`: for each request asked to count, `admitted, count, second`, then `used, oldest`
 *   of each window before it (oldest -1: the window is empty).
 * A request asked to count again (`prev`: the second it was counted in) is first taken out of that second; so
 * is one with `count` '0' and a `prev` (a count taken back). The windows are read and written once per call.
 * KEYS: state, feed, windows, one list per window (shortest first), then the global state when the caller
 * checks the global version here (one Redis, not a cluster).
 * ARGV: known version, known global version, now (epoch second), window count, then per window its seconds
 * and quota, then the request count, then per request `count` ('1' or '0') and `prev` ('0': none), then
 * '1' when the last key is the global state.
 */
export const ADMIT = `${STALE}
local state, feed, windows = KEYS[1], KEYS[2], KEYS[3]
local knownV, knownG, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local nw = tonumber(ARGV[4])
local sizes, quotas, lists = {}, {}, {}
local longest = 1
for i = 1, nw do
  sizes[i] = tonumber(ARGV[3 + 2 * i])
  quotas[i] = tonumber(ARGV[4 + 2 * i])
  lists[i] = KEYS[3 + i]
  if sizes[i] > sizes[longest] then longest = i end
end
local p = 5 + 2 * nw
local jobs = tonumber(ARGV[p])
p = p + 1
local st = redis.call('HMGET', state, 'v', 'g', 'm', 'md')
if st[3] then return {'busy', st[4]} end
if ARGV[p + 2 * jobs] == '1' then
  local gv = tonumber(redis.call('HGET', KEYS[#KEYS], 'v') or '0')
  if gv ~= knownG then return {'global', gv} end
end
local v = tonumber(st[1] or '0')
local g = tonumber(st[2] or '0')
if knownG < g then return {'global', g} end
if v ~= knownV then return stale(feed, v, knownV) end
if knownG > g then redis.call('HSET', state, 'g', knownG) end

local counting = false
for j = 0, jobs - 1 do
  if ARGV[p + 2 * j] == '1' then counting = true end
  local prev = ARGV[p + 2 * j + 1]
  -- A request counted again, or whose count is taken back: out of the second it was counted in.
  if prev ~= '0' and tonumber(redis.call('HGET', windows, prev) or '0') > 0 then
    redis.call('HINCRBY', windows, prev, -1)
    for i = 1, nw do
      local head = redis.call('LINDEX', lists[i], 0)
      if head and tonumber(head) <= tonumber(prev) then redis.call('HINCRBY', windows, 't' .. sizes[i], -1) end
    end
  end
end
local out = {'ok', v}
if not counting then return out end

-- The windows once for the whole batch: what left them, what they hold, then each request in turn.
local gone = {}
for i = 1, nw do
  while true do
    local head = redis.call('LINDEX', lists[i], 0)
    if not head or tonumber(head) + sizes[i] > now then break end
    redis.call('HINCRBY', windows, 't' .. sizes[i], -tonumber(redis.call('HGET', windows, head) or '0'))
    redis.call('LPOP', lists[i])
    if i == longest then gone[#gone + 1] = head end
  end
end
for _, second in ipairs(gone) do redis.call('HDEL', windows, second) end
local totals, heads = {}, {}
for i = 1, nw do
  totals[i] = tonumber(redis.call('HGET', windows, 't' .. sizes[i]) or '0')
  heads[i] = tonumber(redis.call('LINDEX', lists[i], 0) or '-1')
end
local second = now
local last = redis.call('LINDEX', lists[longest], -1)
if last and tonumber(last) > now then second = tonumber(last) end
local count = tonumber(redis.call('HGET', windows, tostring(second)) or '0')
local added = 0
for j = 0, jobs - 1 do
  if ARGV[p + 2 * j] == '1' then
    local admitted = 1
    for i = 1, nw do if totals[i] >= quotas[i] then admitted = 0 end end
    out[#out + 1] = admitted
    out[#out + 1] = admitted == 1 and count + 1 or 0
    out[#out + 1] = second
    for i = 1, nw do
      out[#out + 1] = totals[i]
      out[#out + 1] = heads[i]
      if admitted == 1 then
        totals[i] = totals[i] + 1
        if heads[i] < 0 then heads[i] = second end
      end
    end
    if admitted == 1 then
      added = added + 1
      count = count + 1
    end
  end
end
if added > 0 then
  redis.call('HINCRBY', windows, tostring(second), added)
  for i = 1, nw do
    redis.call('HINCRBY', windows, 't' .. sizes[i], added)
    local tail = redis.call('LINDEX', lists[i], -1)
    if not tail or tonumber(tail) ~= second then redis.call('RPUSH', lists[i], second) end
  end
  redis.call('HINCRBY', state, 'wc', added)
end
return out
`

/**
 * Keeps one change set of an account if the caller's copy is the current one (compare and set on the version):
 * answers `{'ok', version}`, or `busy`, `global` or `stale(...)` as ADMIT does, having changed nothing.
 * KEYS: state, records, feed, then the windows keys to drop when the account is deleted.
 * ARGV: known version, known global version, feed length kept, the set as JSON, '1' to drop the windows,
 * change count, then per change field and JSON ('' deletes).
 */
export const COMMIT = `${STALE}${WRITE}
local state, records, feed = KEYS[1], KEYS[2], KEYS[3]
local knownV, knownG = tonumber(ARGV[1]), tonumber(ARGV[2])
local st = redis.call('HMGET', state, 'v', 'g', 'm', 'md')
if st[3] then return {'busy', st[4]} end
local v = tonumber(st[1] or '0')
local g = tonumber(st[2] or '0')
if knownG < g then return {'global', g} end
if v ~= knownV then return stale(feed, v, knownV) end
write(records, 7, tonumber(ARGV[6]))
v = v + 1
redis.call('HSET', state, 'v', v)
if knownG > g then redis.call('HSET', state, 'g', knownG) end
redis.call('RPUSH', feed, v .. ' ' .. ARGV[4])
redis.call('LTRIM', feed, -tonumber(ARGV[3]), -1)
if ARGV[5] == '1' then for k = 4, #KEYS do redis.call('DEL', KEYS[k]) end end
return {'ok', v}
`

/**
 * The first phase of a global step that changes several parts: marks an account as being changed by the step
 * `token` until `deadline` (Redis time, ms), if its version is still the one the step read. A mark left by an
 * earlier holder of the global lock is dropped (its step, if committed, was carried out when the lock was
 * taken). Answers `{'ok'}`, `{'late'}` past the deadline, or `stale(...)`.
 * KEYS: state, feed. ARGV: known version, token, deadline.
 */
export const PREPARE = `${STALE}
local t = redis.call('TIME')
if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[3]) then return {'late'} end
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then
  redis.call('HDEL', KEYS[1], 'm', 'md')
  return stale(KEYS[2], v, tonumber(ARGV[1]))
end
redis.call('HSET', KEYS[1], 'm', ARGV[2], 'md', ARGV[3])
return {'ok'}
`

/** Drops the mark of step `token`, if it is there. KEYS: state. ARGV: token. */
export const UNPREPARE = `
if redis.call('HGET', KEYS[1], 'm') == ARGV[1] then redis.call('HDEL', KEYS[1], 'm', 'md') end
return 1
`

/**
 * The second phase: applies the committed changes of step `token` to an account at version `base`, and drops
 * its mark. Idempotent (a step carried out again after its holder died finds it done).
 * KEYS: state, records, feed, then the windows keys to drop when the account is deleted.
 * ARGV: token, base version, global version, feed length kept, the set as JSON, '1' to drop the windows,
 * change count, then per change field and JSON ('' deletes).
 */
export const APPLY = `${WRITE}
local state, records, feed = KEYS[1], KEYS[2], KEYS[3]
local base = tonumber(ARGV[2])
local st = redis.call('HMGET', state, 'v', 'm', 'g')
local v = tonumber(st[1] or '0')
if v == base then
  write(records, 8, tonumber(ARGV[7]))
  v = base + 1
  redis.call('HSET', state, 'v', v)
  if tonumber(ARGV[3]) > tonumber(st[3] or '0') then redis.call('HSET', state, 'g', ARGV[3]) end
  redis.call('RPUSH', feed, v .. ' ' .. ARGV[5])
  redis.call('LTRIM', feed, -tonumber(ARGV[4]), -1)
  if ARGV[6] == '1' then for k = 4, #KEYS do redis.call('DEL', KEYS[k]) end end
end
if st[2] == ARGV[1] then redis.call('HDEL', state, 'm', 'md') end
return {'ok', v}
`

/**
 * Reads an account for a caller whose copy holds version `known` (and counted `wc` requests): `{status,
 * version, counted, changes, windows}`, status `same`, `delta` (changes: the change sets missed) or `reload`
 * (changes: every record, field and JSON in turn); windows: the per-second counts when `counted` moved, else
 * 0. `busy` while a global step marks it, unless `clear` is '1' (the caller holds the global lock: such a mark
 * was left by a process that died). KEYS: state, records, feed, windows. ARGV: known version, known counted,
 * clear.
 */
export const READ_ACCOUNT = `
local st = redis.call('HMGET', KEYS[1], 'v', 'wc', 'm', 'md')
if st[3] then
  if ARGV[3] ~= '1' then return {'busy', st[4]} end
  redis.call('HDEL', KEYS[1], 'm', 'md')
end
local v = tonumber(st[1] or '0')
local wc = tonumber(st[2] or '0')
local known = tonumber(ARGV[1])
local status, changes = 'same', {}
if v ~= known then
  local behind = v - known
  if known >= 0 and known < v and behind <= redis.call('LLEN', KEYS[3]) then
    status = 'delta'
    changes = redis.call('LRANGE', KEYS[3], -behind, -1)
  else
    status = 'reload'
    changes = redis.call('HGETALL', KEYS[2])
  end
end
local windows = 0
if wc ~= tonumber(ARGV[2]) then windows = redis.call('HGETALL', KEYS[4]) end
return {status, v, wc, changes, windows}
`

/**
 * Reads the global part for a caller whose copy holds version `known`: `{status, version, epoch, changes}`,
 * status `same`, `delta` (the change sets missed) or `reload` (the caller reads the records itself).
 * KEYS: state, feed. ARGV: known version.
 */
export const READ_GLOBAL = `
local st = redis.call('HMGET', KEYS[1], 'v', 'e')
local v = tonumber(st[1] or '0')
local e = tonumber(st[2] or '0')
local known = tonumber(ARGV[1])
if v == known then return {'same', v, e, {}} end
local behind = v - known
if known >= 0 and known < v and behind <= redis.call('LLEN', KEYS[2]) then
  return {'delta', v, e, redis.call('LRANGE', KEYS[2], -behind, -1)}
end
return {'reload', v, e, {}}
`

/**
 * Takes the global lock (`SET NX PX`) for `token` and reads what the caller needs to bring its copy up to date
 * in the same round trip. Answers false when another holds the lock, else `{time, version, epoch, init,
 * intentToken, intentBody, status, changes, accounts, journal}`: Redis's time (ms), the global version and
 * epoch, whether the store holds a state, an intent left by a holder that died ('' if none), then, when the
 * caller's epoch is the store's, `status` `same`, `delta` (changes: the global sets missed) or `whole`, the ids
 * of the accounts, the journal's count and its entries after the caller's last (at most the list's length).
 * KEYS: lock, state, intent, feed, accounts, journal, journal count (of the caller's epoch). ARGV: token, ttl
 * ms, known global version, known epoch, journal entries read.
 */
export const ACQUIRE = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
local t = redis.call('TIME')
local st = redis.call('HMGET', KEYS[2], 'v', 'e', 'init')
local v = tonumber(st[1] or '0')
local e = tonumber(st[2] or '0')
local intent = redis.call('HMGET', KEYS[3], 'tok', 'body')
local out = {tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), v, e, st[3] or '', intent[1] or '',
  intent[2] or ''}
local known = tonumber(ARGV[3])
if e ~= tonumber(ARGV[4]) then
  out[7] = 'whole'
  return out
end
if v == known then
  out[7] = 'same'
  out[8] = {}
elseif known >= 0 and known < v and v - known <= redis.call('LLEN', KEYS[4]) then
  out[7] = 'delta'
  out[8] = redis.call('LRANGE', KEYS[4], -(v - known), -1)
else
  out[7] = 'whole'
  return out
end
out[9] = redis.call('SMEMBERS', KEYS[5])
local n = tonumber(redis.call('GET', KEYS[7]) or '0')
local missed = math.min(n - tonumber(ARGV[5]), redis.call('LLEN', KEYS[6]))
out[10] = n
if missed > 0 then out[11] = redis.call('LRANGE', KEYS[6], -missed, -1) else out[11] = {} end
return out
`

/**
 * Commits a global step under the lock: applies its global changes (a new version and feed entry when there
 * are any) and records its intent (its changes to accounts, carried out next, and again by whoever takes the
 * lock should this process die first); with `release`, lets go of the lock. Answers `{'ok', version}`, or an
 * error when the lock was lost. KEYS: lock, state, feed, records, intent, released channel.
 * ARGV: token, feed length kept, the global set as JSON, intent JSON ('': none), release ('1'), change count,
 * then per change field and JSON ('' deletes).
 */
export const COMMIT_GLOBAL = `${WRITE}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('LOCK_LOST the global lock was taken over') end
local v = tonumber(redis.call('HGET', KEYS[2], 'v') or '0')
local count = tonumber(ARGV[6])
if count > 0 then
  write(KEYS[4], 7, count)
  v = v + 1
  redis.call('HSET', KEYS[2], 'v', v)
  redis.call('RPUSH', KEYS[3], v .. ' ' .. ARGV[3])
  redis.call('LTRIM', KEYS[3], -tonumber(ARGV[2]), -1)
end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[5], 'tok', ARGV[1], 'body', ARGV[4]) end
if ARGV[5] == '1' then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', KEYS[6], '1')
end
return {'ok', v}
`

/**
 * Ends a global step: drops its intent (it was carried out everywhere) and, with `release`, the lock.
 * KEYS: lock, intent, released channel. ARGV: token (the intent's), lock token, release ('1').
 */
export const FINISH_GLOBAL = `
if redis.call('HGET', KEYS[2], 'tok') == ARGV[1] then redis.call('DEL', KEYS[2]) end
if ARGV[3] == '1' and redis.call('GET', KEYS[1]) == ARGV[2] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', KEYS[3], '1')
end
return 1
`

/**
 * Switches the store to a new epoch whose keys were written beforehand (a reset, or a new store's first
 * state): under the lock, sets the epoch, marks the store as holding a state, and appends a reset entry to the
 * global feed (every process then reads the new epoch whole). KEYS: lock, state, feed, released channel.
 * ARGV: token, epoch, feed length kept, release ('1'). Answers the new global version.
 */
export const SWITCH_EPOCH = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('LOCK_LOST the global lock was taken over') end
local v = tonumber(redis.call('HGET', KEYS[2], 'v') or '0') + 1
redis.call('HSET', KEYS[2], 'v', v, 'e', ARGV[2], 'init', '1')
redis.call('RPUSH', KEYS[3], v .. ' "reset"')
redis.call('LTRIM', KEYS[3], -tonumber(ARGV[3]), -1)
if ARGV[4] == '1' then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', KEYS[4], '1')
end
return v
`

/** Lets go of the lock if this caller still holds it, and says so. KEYS: lock, released channel. ARGV: token. */
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', KEYS[2], '1')
  return 1
end
return 0
`

/**
 * Appends journal entries (each `<process id> <JSON>`) to the journal list, keeping the newest `max`, and
 * counts them. KEYS: list, count. ARGV: max, then the entries.
 */
export const JOURNAL = `
redis.call('RPUSH', KEYS[1], unpack(ARGV, 2))
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[1]), -1)
return redis.call('INCRBY', KEYS[2], #ARGV - 1)
`
