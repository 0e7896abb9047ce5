/**
 * The Lua scripts of the Redis store: each runs atomically in Redis. Keys (under a prefix, `vak:` by
 * default): `lock` (the one writer), `feed` (a stream of change sets, each with its sequence number `n`),
 * `seq` (the last sequence number), `tables` (names of the table hashes), `t:<table>` (a table's records as
 * JSON by key), `initialized`.
 */

/**
 * Takes the lock (`SET NX PX`) and, if taken, returns the change sets published after `after` (a stream id)
 * and the stream's first id, so the caller can tell whether it missed sets that were trimmed away.
 * KEYS: lock, feed. ARGV: token, ttl ms, after.
 */
export const ACQUIRE = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
local first = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
local firstId = ''
if first[1] then firstId = first[1][1] end
return {firstId, redis.call('XRANGE', KEYS[2], '(' .. ARGV[3], '+')}
`

/**
 * Publishes change sets and (with `release` '1') lets go of the lock, if this caller still holds it. For each
 * set: apply its changes to the table hashes (a reset first deletes them all); then, unless its payload is
 * empty (the first state of a new store, which nobody needs to replay), take the next sequence number and
 * append it to the feed. Returns the ids of the appended entries.
 * KEYS: lock, feed, seq, tables, initialized, released (a channel told when the lock is let go). ARGV: token,
 * key prefix, max feed length, release, set count,
 * then per set: payload JSON, reset flag ('1' or '0'), change count, then per change: table, key, value JSON
 * ('' deletes).
 */
export const COMMIT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('LOCK_LOST the store was taken over') end
local prefix = ARGV[2]
local maxlen = ARGV[3]
local release = ARGV[4]
local sets = tonumber(ARGV[5])
local i = 6
local ids = {}
for s = 1, sets do
  local payload, reset, count = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  i = i + 3
  if reset == '1' then
    for _, name in ipairs(redis.call('SMEMBERS', KEYS[4])) do redis.call('DEL', prefix .. 't:' .. name) end
    redis.call('DEL', KEYS[4])
  end
  for c = 1, count do
    local name, key, value = ARGV[i], ARGV[i + 1], ARGV[i + 2]
    i = i + 3
    if value == '' then
      redis.call('HDEL', prefix .. 't:' .. name, key)
    else
      redis.call('HSET', prefix .. 't:' .. name, key, value)
      redis.call('SADD', KEYS[4], name)
    end
  end
  if payload ~= '' then
    local n = redis.call('INCR', KEYS[3])
    ids[#ids + 1] = redis.call('XADD', KEYS[2], 'MAXLEN', '~', maxlen, '*', 'n', n, 's', payload)
  end
end
if release == '1' then
  redis.call('SET', KEYS[5], '1')
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', KEYS[6], '1')
end
return ids
`

/** Lets go of the lock if this caller still holds it, and says so on a channel. KEYS: lock, released. ARGV: token. */
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', KEYS[2], '1')
  return 1
end
return 0
`
