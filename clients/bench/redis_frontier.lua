#!lua name=frontier
-- The Redis peer of frontierd for frontier-bench and compare-redis.sh: the
-- three verbs done the way crawlers built on Redis do them today (scrapy-redis:
-- a SET of seen URLs for dedupe, a sorted set as the priority queue; plus the
-- in-flight sorted set with lease deadlines that at-least-once workers add).
--
-- Keys (passed as KEYS, so the functions also run on a cluster shard):
--   seen      SET   every URL ever added
--   queue     ZSET  URL -> priority (lower pops first)
--   inflight  ZSET  URL -> lease deadline, ms since the epoch
--
--   FCALL fadd     2 seen queue url [priority]     -> 1 new and queued, 0 known
--   FCALL fmadd    2 seen queue ref url [url ...]  -> array of fadd replies
--   FCALL fpop     2 queue inflight [count [lease-seconds]]
--                    -> without count: URL or nil; with count: array (maybe empty)
--   FCALL fconfirm 1 inflight url                  -> 1 if it was leased, else 0
--   FCALL fstats   3 seen queue inflight           -> urls n queued n leased n
--
-- No depth, no per-site politeness, no attempt counting and no done state
-- beyond "seen": that is the point of the comparison.

local DEFAULT_PRIORITY = 5000
local DEFAULT_LEASE_MS = 300000
-- Expired leases moved back per fpop, so one call stays O(batch log n).
local RECLAIM_BATCH = 100

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function add_one(seen, queue, url, priority)
  if redis.call('SADD', seen, url) == 1 then
    redis.call('ZADD', queue, priority, url)
    return 1
  end
  return 0
end

local function fadd(keys, args)
  local url = args[1]
  if url == nil then
    return redis.error_reply('ERR wrong number of arguments for \'fadd\'')
  end
  local priority = tonumber(args[2]) or DEFAULT_PRIORITY
  return add_one(keys[1], keys[2], url, priority)
end

local function fmadd(keys, args)
  -- args[1] is the referring page; the peer keeps no depth, so it is unused.
  local replies = {}
  for i = 2, #args do
    replies[i - 1] = add_one(keys[1], keys[2], args[i], DEFAULT_PRIORITY)
  end
  return replies
end

-- Leases whose deadline has passed go back to the queue (at the default
-- priority: the peer does not remember the original one).
local function reclaim(queue, inflight, now)
  local expired = redis.call('ZRANGEBYSCORE', inflight, '-inf', now,
                             'LIMIT', 0, RECLAIM_BATCH)
  for _, url in ipairs(expired) do
    redis.call('ZREM', inflight, url)
    redis.call('ZADD', queue, DEFAULT_PRIORITY, url)
  end
end

local function fpop(keys, args)
  local queue, inflight = keys[1], keys[2]
  local count = tonumber(args[1])
  local lease_ms = DEFAULT_LEASE_MS
  if args[2] ~= nil then lease_ms = math.floor(tonumber(args[2]) * 1000) end
  local now = now_ms()
  reclaim(queue, inflight, now)

  local popped = redis.call('ZPOPMIN', queue, count or 1)  -- url, score, ...
  local urls = {}
  local zadd = {}
  local deadline = now + lease_ms
  for i = 1, #popped, 2 do
    urls[#urls + 1] = popped[i]
    zadd[#zadd + 1] = deadline
    zadd[#zadd + 1] = popped[i]
  end
  if #zadd > 0 then redis.call('ZADD', inflight, unpack(zadd)) end
  if count == nil then
    return urls[1]  -- nil becomes a nil bulk reply
  end
  return urls
end

local function fconfirm(keys, args)
  return redis.call('ZREM', keys[1], args[1])
end

local function fstats(keys)
  return {'urls', redis.call('SCARD', keys[1]),
          'queued', redis.call('ZCARD', keys[2]),
          'leased', redis.call('ZCARD', keys[3])}
end

redis.register_function('fadd', fadd)
redis.register_function('fmadd', fmadd)
redis.register_function('fpop', fpop)
redis.register_function('fconfirm', fconfirm)
redis.register_function{function_name = 'fstats', callback = fstats,
                        flags = {'no-writes'}}
