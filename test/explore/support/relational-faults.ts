import type { EngineRequest, EngineResponse } from '../../../mocks/engine/types.ts'
import type { MockPlatform } from '../../../mocks/platform.ts'
import { bodyOf, isObject, type Json, notFound, partsOf, World } from './world.ts'

/** How a faulty implementation answers: given the request and the correct engine behind it. */
export type Middleware = (
  request: EngineRequest,
  next: (request: EngineRequest) => Promise<EngineResponse>,
) => Promise<EngineResponse>

/** A realistic fault in how operations relate: across pages, accounts, keys, time, order, idempotency. */
export interface RelationalFault {
  name: string
  kind: 'pages' | 'accounts' | 'keys' | 'time' | 'order' | 'idempotency' | 'analytics'
  /** The bug, as an implementer would have written it. */
  what: string
  make(world: World): Middleware
}

const HOUR = 3600_000
const DAY = 24 * HOUR

/** The request with another query. */
function withQuery(request: EngineRequest, change: (query: URLSearchParams) => void): EngineRequest {
  const url = new URL(request.url, 'http://fault.test')
  change(url.searchParams)
  return { ...request, url: url.pathname + (url.search === '?' ? '' : url.search) }
}

/** The request sent with another key (a shortcut that authorises as someone else). */
const withKey = (request: EngineRequest, value: string): EngineRequest => ({
  ...request,
  headers: { ...request.headers, authorization: `Bearer ${value}` },
})

/** A list answer to rewrite: GET on a collection path, 200. */
function isList(request: EngineRequest, response: EngineResponse, collection?: string): boolean {
  const { path } = partsOf(request)
  return (
    (request.method === 'GET' || request.method === 'HEAD') &&
    response.status === 200 &&
    isObject(response.body) &&
    Array.isArray(response.body.data) &&
    (collection === undefined || path === collection)
  )
}

const sorted = (data: Json[]) =>
  [...data].sort(
    (a, b) =>
      String(b.created_at).localeCompare(String(a.created_at)) || String(b.id).localeCompare(String(a.id)),
  )

/** The idempotency records a fault keeps itself: account, key, what was asked, what was answered, when. */
interface Stored {
  account: string
  key: string
  path: string
  body: string
  response: EngineResponse
  at: number
}

const canonical = (body: string | null) => {
  try {
    return JSON.stringify(JSON.parse(body ?? 'null'))
  } catch {
    return String(body)
  }
}

function replay(stored: EngineResponse, current: EngineResponse): EngineResponse {
  return {
    ...structuredClone(stored),
    headers: {
      ...stored.headers,
      'request-id': current.headers['request-id'] as string,
      'idempotent-replayed': 'true',
      ...pick(current.headers, [
        'ratelimit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'x-ratelimit-limit',
      ]),
    },
  }
}

const pick = (headers: Record<string, string>, names: string[]) =>
  Object.fromEntries(names.filter((n) => headers[n] !== undefined).map((n) => [n, headers[n] as string]))

/**
 * Faults written from how implementations go wrong between operations (not from the suite's checks): each a
 * wrapper around the correct engine that rewrites what is asked or answered, keeping what state it needs.
 */
export const RELATIONAL_FAULTS: RelationalFault[] = [
  // ------------------------------------------------------------------------- pages
  {
    name: 'cursor-offset-after-delete',
    kind: 'pages',
    what: 'a cursor is turned into the offset its object had when the first page was listed: after a delete before it, the next page starts one object too far',
    make: (world) => {
      // Per account and collection: where each object was on the last first page, and what was deleted since.
      const positions = new Map<string, Map<string, number>>()
      const deletedSince = new Map<string, Set<string>>()
      return async (request, next) => {
        const response = await next(request)
        const account = world.accountOf(request)
        const { path, query } = partsOf(request)
        const collection = path.replace(/\/[^/]+$/, '')
        if (!account) return response
        if (request.method === 'DELETE' && response.status === 200) {
          deletedSince.get(`${account}${collection}`)?.add(path.slice(collection.length + 1))
          return response
        }
        if (!isList(request, response)) return response
        const id = `${account}${path}`
        const cursor = query.get('starting_after')
        if (!cursor && !query.has('ending_before')) {
          positions.set(id, new Map((bodyOf(response).data as Json[]).map((o, i) => [String(o.id), i])))
          deletedSince.set(id, new Set())
          return response
        }
        const at = cursor ? positions.get(id)?.get(cursor) : undefined
        if (at === undefined) return response
        const gone = [...(deletedSince.get(id) ?? [])].filter(
          (d) => (positions.get(id)?.get(d) ?? Infinity) < at,
        )
        if (gone.length > 0) bodyOf(response).data = (bodyOf(response).data as Json[]).slice(gone.length)
        return response
      }
    },
  },
  {
    name: 'has-more-when-full',
    kind: 'pages',
    what: 'has_more is true whenever a page is full (data.length === limit), even when nothing follows',
    make: () => async (request, next) => {
      const response = await next(request)
      const limit = Number(partsOf(request).query.get('limit') ?? 20)
      if (
        isList(request, response) &&
        (bodyOf(response).data as Json[]).length === limit &&
        !partsOf(request).path.startsWith('/integrations')
      )
        bodyOf(response).has_more = true
      return response
    },
  },
  {
    name: 'ending-before-oldest-first',
    kind: 'pages',
    what: 'ending_before pages come oldest first (the reversed query is not reversed back)',
    make: () => async (request, next) => {
      const response = await next(request)
      if (partsOf(request).query.has('ending_before') && isList(request, response))
        bodyOf(response).data = [...(bodyOf(response).data as Json[])].reverse()
      return response
    },
  },
  {
    name: 'ending-before-has-more-false',
    kind: 'pages',
    what: 'has_more is always false when paging backwards with ending_before',
    make: () => async (request, next) => {
      const response = await next(request)
      if (partsOf(request).query.has('ending_before') && isList(request, response))
        bodyOf(response).has_more = false
      return response
    },
  },
  {
    name: 'limit-dropped-with-cursor',
    kind: 'pages',
    what: 'limit is ignored on pages after the first (the next-page query keeps only the cursor)',
    make: () => (request, next) =>
      next(
        partsOf(request).query.has('starting_after') || partsOf(request).query.has('ending_before')
          ? withQuery(request, (q) => q.delete('limit'))
          : request,
      ),
  },
  {
    name: 'starting-after-inclusive',
    kind: 'pages',
    what: 'starting_after includes the cursor object itself (>= instead of >)',
    make: (world) => async (request, next) => {
      const response = await next(request)
      const cursor = partsOf(request).query.get('starting_after')
      const known = cursor ? world.objects.get(cursor) : undefined
      if (known && isList(request, response)) {
        const data = bodyOf(response).data as Json[]
        const limit = Number(partsOf(request).query.get('limit') ?? 20)
        bodyOf(response).data = [known.object, ...data].slice(0, limit)
      }
      return response
    },
  },
  // ------------------------------------------------------------------------- accounts
  {
    name: 'get-by-id-any-account',
    kind: 'accounts',
    what: 'an object is found by its ID whatever account it belongs to (the lookup forgets the account)',
    make: (world) => async (request, next) => {
      const response = await next(request)
      const id = /^\/(agents|team-members|call-logs)\/([^/]+)$/.exec(partsOf(request).path)?.[2]
      const known = id ? world.objects.get(decodeURIComponent(id)) : undefined
      if (
        request.method === 'GET' &&
        response.status === 404 &&
        known &&
        known.account !== world.accountOf(request)
      )
        return { ...response, status: 200, body: structuredClone(known.object) }
      return response
    },
  },
  {
    name: 'agents-of-every-account-listed',
    kind: 'accounts',
    what: "the agents list shows the other accounts' agents too (a WHERE account_id missing)",
    make: (world) => async (request, next) => {
      const response = await next(request)
      if (!isList(request, response, '/agents') || partsOf(request).query.size > 0) return response
      const account = world.accountOf(request)
      const others = [...world.objects.values()].filter(
        (o) => o.account !== account && String(o.object.id).startsWith('agt_'),
      )
      if (others.length > 0)
        bodyOf(response).data = sorted([
          ...(bodyOf(response).data as Json[]),
          ...others.map((o) => o.object),
        ]).slice(0, 20)
      return response
    },
  },
  {
    name: 'member-of-another-account-removable',
    kind: 'accounts',
    what: 'DELETE /team-members/{id} removes a member of another account (the delete checks only that the ID exists)',
    make: (world) => async (request, next) => {
      const response = await next(request)
      const id = /^\/team-members\/([^/]+)$/.exec(partsOf(request).path)?.[1]
      const known = id ? world.objects.get(id) : undefined
      if (request.method === 'DELETE' && response.status === 404 && known && known.object.role !== 'owner')
        return { ...response, status: 200, body: { id, object: 'team_member', deleted: true } }
      return response
    },
  },
  {
    name: 'idempotency-keys-global',
    kind: 'accounts',
    what: 'Idempotency-Keys are stored for the whole platform: another account with the same key gets the first answer',
    make: (world) => {
      const stored = new Map<string, Stored>()
      return async (request, next) => {
        const response = await next(request)
        const key = request.headers['idempotency-key']
        const account = world.accountOf(request)
        if (request.method !== 'POST' || key === undefined || !account) return response
        const hit = stored.get(key)
        if (hit && hit.account !== account && hit.body === canonical(request.body) && response.status < 300)
          return replay(hit.response, response)
        if (!hit && response.status < 300)
          stored.set(key, {
            account,
            key,
            path: partsOf(request).path,
            body: canonical(request.body),
            response: structuredClone(response),
            at: world.now(),
          })
        return response
      }
    },
  },
  // ------------------------------------------------------------------------- keys
  {
    name: 'revocation-cached-a-minute',
    kind: 'keys',
    what: 'a revoked key keeps working for 60 s (the authentication cache is not told of revocations)',
    make: (world) => (request, next) => {
      const key = world.keyOf(request)
      const full = key ? world.fullKeyOf(key.account) : undefined
      if (
        key?.revokedAt !== undefined &&
        world.now() - key.revokedAt < 60_000 &&
        full &&
        full.value !== key.value
      )
        return next(withKey(request, full.value))
      return next(request)
    },
  },
  {
    name: 'expiry-not-checked',
    kind: 'keys',
    what: 'a key past its expires_at is still accepted (expiry is checked only when the key is created)',
    make: (world) => (request, next) => {
      const key = world.keyOf(request)
      const full = key ? world.fullKeyOf(key.account) : undefined
      if (key?.expiresAt !== undefined && world.now() >= key.expiresAt && key.revokedAt === undefined && full)
        return next(withKey(request, full.value))
      return next(request)
    },
  },
  {
    name: 'agents-write-deletes',
    kind: 'keys',
    what: 'agents:write is enough to delete an agent (resources:delete is not asked for)',
    make: (world) => (request, next) => {
      const key = world.keyOf(request)
      const full = key ? world.fullKeyOf(key.account) : undefined
      if (
        request.method === 'DELETE' &&
        partsOf(request).path.startsWith('/agents/') &&
        key &&
        full &&
        key.revokedAt === undefined &&
        key.permissions.includes('agents:write') &&
        !key.permissions.includes('resources:delete')
      )
        return next(withKey(request, full.value))
      return next(request)
    },
  },
  {
    name: 'read-keys-list-members',
    kind: 'keys',
    what: 'reading team members needs only a read scope (team_members:write is asked for writes only)',
    make: (world) => (request, next) => {
      const key = world.keyOf(request)
      const full = key ? world.fullKeyOf(key.account) : undefined
      if (
        request.method === 'GET' &&
        partsOf(request).path.startsWith('/team-members') &&
        key &&
        full &&
        key.type === 'secret' &&
        key.revokedAt === undefined &&
        key.permissions.includes('agents:read')
      )
        return next(withKey(request, full.value))
      return next(request)
    },
  },
  {
    name: 'publishable-sees-prompt',
    kind: 'keys',
    what: 'a publishable key reading one agent gets its system_prompt, webhook_url and metadata (only the list hides them)',
    make: (world) => async (request, next) => {
      const response = await next(request)
      const key = world.keyOf(request)
      const id = /^\/agents\/([^/]+)$/.exec(partsOf(request).path)?.[1]
      const known = id ? world.objects.get(id) : undefined
      if (key?.type === 'publishable' && request.method === 'GET' && response.status === 200 && known) {
        const body = bodyOf(response)
        for (const field of ['system_prompt', 'webhook_url', 'metadata'])
          if (known.object[field] !== undefined) body[field] = known.object[field]
      }
      return response
    },
  },
  // ------------------------------------------------------------------------- time
  {
    name: 'idempotency-kept-two-days',
    kind: 'time',
    what: 'Idempotency-Keys are kept 48 hours instead of 24',
    make: (world) => {
      const stored = new Map<string, Stored>()
      return async (request, next) => {
        const response = await next(request)
        const key = request.headers['idempotency-key']
        const account = world.accountOf(request)
        if (request.method !== 'POST' || key === undefined || !account || response.status >= 300)
          return response
        const id = `${account}/${key}`
        const hit = stored.get(id)
        const replayed = response.headers['idempotent-replayed'] !== undefined
        if (
          !replayed &&
          hit &&
          world.now() - hit.at < 2 * DAY &&
          hit.body === canonical(request.body) &&
          hit.path === partsOf(request).path
        )
          return replay(hit.response, response)
        if (!replayed)
          stored.set(id, {
            account,
            key,
            path: partsOf(request).path,
            body: canonical(request.body),
            response: structuredClone(response),
            at: world.now(),
          })
        return response
      }
    },
  },
  {
    name: 'idempotency-kept-an-hour',
    kind: 'time',
    what: 'Idempotency-Keys expire after one hour instead of 24',
    make: (world) => {
      const first = new Map<string, number>()
      return async (request, next) => {
        const key = request.headers['idempotency-key']
        const account = world.accountOf(request)
        if (request.method !== 'POST' || key === undefined || !account) return next(request)
        const id = `${account}/${key}`
        const at = first.get(id)
        if (at !== undefined && world.now() - at >= HOUR) {
          first.set(id, world.now())
          const { 'idempotency-key': _gone, ...headers } = request.headers
          return next({ ...request, headers })
        }
        const response = await next(request)
        if (at === undefined && response.status < 300) first.set(id, world.now())
        return response
      }
    },
  },
  {
    name: 'updated-at-not-moved',
    kind: 'time',
    what: 'updated_at of an agent stays at its creation (the PATCH writes the fields, not the timestamp)',
    make: () => async (request, next) => {
      const response = await next(request)
      const body = response.body
      const fix = (o: unknown) => {
        if (isObject(o) && o.object === 'agent' && typeof o.created_at === 'string')
          o.updated_at = o.created_at
      }
      if (response.status < 300 && isObject(body)) {
        fix(body)
        if (Array.isArray(body.data)) body.data.forEach(fix)
      }
      return response
    },
  },
  {
    name: 'retry-after-from-hourly',
    kind: 'time',
    what: 'Retry-After always tells the hourly window’s wait, even when the burst window is the one exhausted',
    make: () => async (request, next) => {
      const response = await next(request)
      if (response.status !== 429) return response
      const hourly = /"hourly";r=\d+;t=(\d+)/.exec(response.headers.ratelimit ?? '')?.[1]
      if (hourly && Number(hourly) > 0) {
        response.headers['retry-after'] = hourly
        const error = bodyOf(response).error as Json
        error.retry_after = Number(hourly)
        error.policy = 'hourly'
      }
      return response
    },
  },
  {
    name: 'refused-keys-counted',
    kind: 'time',
    what: "a request refused with 401 still counts in its account's burst window",
    make: (world) => {
      const refused = new Map<string, number[]>()
      return async (request, next) => {
        const response = await next(request)
        const account = world.accountOf(request)
        if (!account) return response
        const now = world.now()
        const list = (refused.get(account) ?? []).filter((at) => now - at < 60_000)
        if (response.status === 401) {
          list.push(now)
          refused.set(account, list)
          return response
        }
        refused.set(account, list)
        if (list.length > 0 && response.headers.ratelimit)
          response.headers.ratelimit = response.headers.ratelimit.replace(
            /"burst";r=(\d+)/,
            (_, r: string) => `"burst";r=${Math.max(0, Number(r) - list.length)}`,
          )
        return response
      }
    },
  },
  {
    name: 'started-after-inclusive',
    kind: 'time',
    what: 'started_after keeps calls that started exactly at the bound (>= instead of >)',
    make: () => (request, next) =>
      next(
        partsOf(request).query.has('started_after')
          ? withQuery(request, (q) => {
              const at = Date.parse(q.get('started_after') ?? '')
              if (!Number.isNaN(at))
                q.set('started_after', new Date(at - 1000).toISOString().replace('.000Z', 'Z'))
            })
          : request,
      ),
  },
  // ------------------------------------------------------------------------- order of operations
  {
    name: 'deleted-agent-readable',
    kind: 'order',
    what: 'a deleted agent is still answered by GET /agents/{id} (a soft delete the read does not filter)',
    make: (world) => async (request, next) => {
      const response = await next(request)
      const id = /^\/agents\/([^/]+)$/.exec(partsOf(request).path)?.[1]
      const gone = id ? world.deleted.get(id) : undefined
      if (
        request.method === 'GET' &&
        response.status === 404 &&
        gone &&
        gone.account === world.accountOf(request)
      )
        return { ...response, status: 200, body: structuredClone(gone.object) }
      return response
    },
  },
  {
    name: 'deleted-agent-listed',
    kind: 'order',
    what: 'a deleted agent still appears in the first page of GET /agents',
    make: (world) => async (request, next) => {
      const response = await next(request)
      if (
        !isList(request, response, '/agents') ||
        partsOf(request).query.has('starting_after') ||
        partsOf(request).query.has('ending_before')
      )
        return response
      const account = world.accountOf(request)
      const gone = [...world.deleted.values()].filter(
        (d) => d.account === account && String(d.object.id).startsWith('agt_'),
      )
      if (gone.length > 0) {
        const limit = Number(partsOf(request).query.get('limit') ?? 20)
        bodyOf(response).data = sorted([
          ...(bodyOf(response).data as Json[]),
          ...gone.map((g) => g.object),
        ]).slice(0, limit)
      }
      return response
    },
  },
  {
    name: 'null-ignored-on-patch',
    kind: 'order',
    what: 'PATCH ignores fields set to null (the merge skips null values), so null never clears',
    make: () => (request, next) => {
      if (request.method !== 'PATCH' || !request.body) return next(request)
      try {
        const body = JSON.parse(request.body) as unknown
        if (!isObject(body)) return next(request)
        const kept = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null))
        if (Object.keys(kept).length === Object.keys(body).length || Object.keys(kept).length === 0)
          return next(request)
        return next({ ...request, body: JSON.stringify(kept) })
      } catch {
        return next(request)
      }
    },
  },
  {
    name: 'replay-after-delete-creates',
    kind: 'order',
    what: 'repeating a create with its Idempotency-Key after the object was deleted creates a new one',
    make: (world) => {
      const made = new Map<string, string>()
      return async (request, next) => {
        const key = request.headers['idempotency-key']
        const account = world.accountOf(request)
        const id = key && account ? `${account}/${key}` : undefined
        const object = id ? made.get(id) : undefined
        if (request.method === 'POST' && object && world.deleted.has(object)) {
          const { 'idempotency-key': _gone, ...headers } = request.headers
          return next({ ...request, headers })
        }
        const response = await next(request)
        if (
          id &&
          request.method === 'POST' &&
          response.status < 300 &&
          isObject(response.body) &&
          !made.has(id)
        )
          made.set(id, String(response.body.id))
        return response
      }
    },
  },
  {
    name: 'agent-delete-cascades',
    kind: 'order',
    what: 'deleting an agent deletes its call logs as well (a cascading foreign key), where the contract keeps them',
    make: (world) => async (request, next) => {
      const response = await next(request)
      const goneAgents = new Set([...world.deleted.keys()].filter((id) => id.startsWith('agt_')))
      if (goneAgents.size === 0) return response
      const { path } = partsOf(request)
      if (isList(request, response, '/call-logs'))
        bodyOf(response).data = (bodyOf(response).data as Json[]).filter(
          (log) => !goneAgents.has(String(log.agent_id)),
        )
      else if (
        /^\/call-logs\/[^/]+$/.test(path) &&
        response.status === 200 &&
        goneAgents.has(String(bodyOf(response).agent_id))
      )
        return notFound(response, 'call_log_id')
      return response
    },
  },
  {
    name: 'owner-removable',
    kind: 'order',
    what: 'the owner can be removed (the owner check runs only for role changes)',
    make: () => {
      const removed = new Set<string>()
      return async (request, next) => {
        const { path } = partsOf(request)
        const id = /^\/team-members\/([^/]+)$/.exec(path)?.[1]
        // Gone for good: asked for again, it is an unknown member.
        if (id && removed.has(id)) return next({ ...request, url: request.url.replace(id, 'mem_0gone0') })
        const response = await next(request)
        if (request.method === 'DELETE' && response.status === 409 && id) {
          removed.add(id)
          return { ...response, status: 200, body: { id, object: 'team_member', deleted: true } }
        }
        if (isList(request, response, '/team-members'))
          bodyOf(response).data = (bodyOf(response).data as Json[]).filter((m) => !removed.has(String(m.id)))
        return response
      }
    },
  },
  {
    name: 'voice-patch-resets-speed',
    kind: 'order',
    what: 'PATCH voice replaces the stored voice with the create defaults for what it leaves out (speed back to 1)',
    make: () => (request, next) => {
      if (request.method !== 'PATCH' || !partsOf(request).path.startsWith('/agents/') || !request.body)
        return next(request)
      try {
        const body = JSON.parse(request.body) as Json
        if (isObject(body.voice) && body.voice.speed === undefined && Object.keys(body.voice).length > 0)
          return next({ ...request, body: JSON.stringify({ ...body, voice: { ...body.voice, speed: 1 } }) })
      } catch {
        // not JSON: as it is
      }
      return next(request)
    },
  },
  {
    name: 'metadata-merged',
    kind: 'order',
    what: 'PATCH metadata merges the keys into the stored ones instead of replacing the map',
    make: (world) => (request, next) => {
      const id = /^\/agents\/([^/]+)$/.exec(partsOf(request).path)?.[1]
      const stored = id ? world.objects.get(id)?.object.metadata : undefined
      if (request.method !== 'PATCH' || !isObject(stored) || !request.body) return next(request)
      try {
        const body = JSON.parse(request.body) as Json
        if (isObject(body.metadata) && Object.keys({ ...stored, ...body.metadata }).length <= 50)
          return next({
            ...request,
            body: JSON.stringify({ ...body, metadata: { ...stored, ...body.metadata } }),
          })
      } catch {
        // not JSON: as it is
      }
      return next(request)
    },
  },
  {
    name: 'disconnect-keeps-hint',
    kind: 'order',
    what: 'credentials: null disconnects but leaves credential_hint and connected_at as they were',
    make: (world) => {
      const kept = new Map<string, Json>()
      return async (request, next) => {
        const response = await next(request)
        const account = world.accountOf(request) ?? ''
        const fix = (o: unknown) => {
          if (!isObject(o) || o.object !== 'integration') return
          const stale = kept.get(`${account}/${String(o.id)}`)
          if (stale && o.status === 'not_connected') Object.assign(o, stale)
          if (o.status === 'connected') kept.delete(`${account}/${String(o.id)}`)
        }
        const body = response.body
        if (
          request.method === 'PATCH' &&
          request.body?.includes('"credentials":null') &&
          isObject(body) &&
          response.status === 200
        ) {
          const before = world.objects.get(String(body.id))?.object
          if (before && before.credential_hint !== null)
            kept.set(`${account}/${String(body.id)}`, {
              credential_hint: before.credential_hint,
              connected_at: before.connected_at,
            })
        }
        if (response.status === 200 && isObject(body)) {
          fix(body)
          if (Array.isArray(body.data)) body.data.forEach(fix)
        }
        return response
      }
    },
  },
  // ------------------------------------------------------------------------- idempotency
  {
    name: 'idempotency-ignores-path',
    kind: 'idempotency',
    what: 'an Idempotency-Key used on one path and sent to another gets the first answer back (the path is not part of the key)',
    make: (world) => {
      const stored = new Map<string, Stored>()
      return async (request, next) => {
        const key = request.headers['idempotency-key']
        const account = world.accountOf(request)
        if (request.method !== 'POST' || key === undefined || !account) return next(request)
        const id = `${account}/${key}`
        const hit = stored.get(id)
        const response = await next(request)
        if (hit && hit.path !== partsOf(request).path && response.status === 409)
          return replay(hit.response, response)
        if (!hit && response.status < 300)
          stored.set(id, {
            account,
            key,
            path: partsOf(request).path,
            body: canonical(request.body),
            response: structuredClone(response),
            at: world.now(),
          })
        return response
      }
    },
  },
  {
    name: 'idempotency-ignores-body',
    kind: 'idempotency',
    what: 'the same Idempotency-Key with another body replays the first answer instead of 409',
    make: (world) => {
      const stored = new Map<string, Stored>()
      return async (request, next) => {
        const key = request.headers['idempotency-key']
        const account = world.accountOf(request)
        if (request.method !== 'POST' || key === undefined || !account) return next(request)
        const id = `${account}/${key}`
        const response = await next(request)
        const hit = stored.get(id)
        const reused =
          response.status === 409 &&
          isObject(response.body) &&
          (bodyOf(response).error as Json).code === 'idempotency_key_reused'
        if (hit && reused && hit.path === partsOf(request).path) return replay(hit.response, response)
        if (!hit && response.status < 300)
          stored.set(id, {
            account,
            key,
            path: partsOf(request).path,
            body: canonical(request.body),
            response: structuredClone(response),
            at: world.now(),
          })
        return response
      }
    },
  },
  // ------------------------------------------------------------------------- analytics
  {
    name: 'analytics-counts-deleted-calls',
    kind: 'analytics',
    what: 'a deleted call log still counts in GET /analytics/calls (the aggregate reads the raw table)',
    make: (world) => async (request, next) => {
      const response = await next(request)
      if (partsOf(request).path !== '/analytics/calls' || response.status !== 200) return response
      const account = world.accountOf(request)
      const body = bodyOf(response)
      const start = Date.parse(String(body.start))
      const end = Date.parse(String(body.end))
      const agent = body.agent_id
      const gone = [...world.deleted.values()].filter(
        (d) =>
          d.account === account &&
          d.object.object === 'call_log' &&
          (agent === null || d.object.agent_id === agent) &&
          Date.parse(String(d.object.created_at)) >= start &&
          Date.parse(String(d.object.created_at)) < end,
      )
      if (gone.length > 0)
        (body.totals as Json).call_count = Number((body.totals as Json).call_count) + gone.length
      return response
    },
  },
  {
    name: 'analytics-agent-filter-dropped-when-grouped',
    kind: 'analytics',
    what: 'agent_id is ignored when group_by is given (the grouped query is built without the filter)',
    make: () => async (request, next) => {
      const { query } = partsOf(request)
      if (partsOf(request).path !== '/analytics/calls' || !query.has('group_by') || !query.has('agent_id'))
        return next(request)
      const response = await next(withQuery(request, (q) => q.delete('agent_id')))
      if (response.status === 200) bodyOf(response).agent_id = query.get('agent_id')
      return response
    },
  },
]

/**
 * The engine behind a fault: each request goes through the fault's middleware to the platform, and the world
 * learns from the correct answers. Answers are copies, so the platform's own objects are never touched.
 */
export function faultyPlatform(platform: MockPlatform, fault: RelationalFault) {
  const world = new World(platform)
  const middleware = fault.make(world)
  const next = async (request: EngineRequest) => {
    const response = await platform.handle(request)
    world.observe(request, response)
    return structuredClone(response)
  }
  return {
    world,
    handle: (request: EngineRequest) => middleware(request, next),
    changes: () => platform.changes(),
  }
}
