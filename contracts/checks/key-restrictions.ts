import { ensure, expectError, expectStatus, inOrder } from './failure.ts'
import { scratchAccount } from './fixtures.ts'
import { iso } from './formats.ts'
import type { ContractCheck } from './types.ts'

/**
 * Every IPv4 and IPv6 address, as halves, the halves holding loopback addresses last: a local client matches a
 * later entry, never only the first one (a key is admitted from any of its entries).
 */
const EVERYWHERE = ['8000::/1', '128.0.0.0/1', '::/1', '0.0.0.0/1']
/** The loopback addresses a local client has, each listed exactly (no range). */
const LOOPBACK = ['127.0.0.1', '::1', '::ffff:127.0.0.1']
/**
 * Documentation ranges (RFC 5737, RFC 3849), never the address of a real client, in every written form: a bare
 * address, the highest byte, IPv6 groups in full, with `::` for one group, in capitals, with an IPv4 tail.
 */
const NOWHERE = [
  '192.0.2.0/24',
  '198.51.100.7',
  '198.51.100.255',
  '203.0.113.0/25',
  '2001:db8::/32',
  '2001:db8:1::/48',
  '2001:db8:0:0:0:0:0:1',
  '2001:db8:1:2:3:4::5',
  '2001:DB8::A/128',
  '::ffff:192.0.2.1',
]

/**
 * `allowed_ips` (docs/decisions/003-api-keys.md): a key restricted to addresses the client cannot have is refused
 * with 403 `key_restricted`, also when the client claims an allowed address in `X-Forwarded-For`, `Forwarded` or
 * `X-Real-IP`; one restricted to ranges that cover every address is admitted. The keys are
 * made through the mock's control plane (elsewhere keys are made in the dashboard).
 */
const allowedIps: ContractCheck = {
  id: 'authorization/allowed-ips',
  area: 'authorization',
  group: 'Key restrictions',
  title:
    'refuses a key restricted to addresses the client does not have (403 key_restricted) and admits one restricted to ranges covering every address',
  async run(ctx) {
    const mock = ctx.mock
    if (!mock)
      return ctx.skip('needs keys with allowed_ips, made through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'allowed_ips')
    const key = async (ips: string[]) =>
      (
        await mock.createKey(account.id, {
          type: 'secret',
          name: `${name} (${ips.length} ranges)`,
          restrictions: { allowed_ips: ips },
        })
      ).value
    const elsewhere = await key(NOWHERE)
    const everywhere = await key(EVERYWHERE)
    const get = (value: string) =>
      ctx.call({ method: 'GET', path: '/user', key: value, sensitive: [value], operationId: 'getUser' })
    const admits = async (value: string) => (await get(value)).response.status === 200
    expectError(
      await get(elsewhere),
      403,
      { type: 'permission_error', code: 'key_restricted' },
      `for a key restricted to ${NOWHERE.join(', ')}`,
    )
    // What the client writes about its own address is not its address: a proxy in front appends the address it
    // saw, so the entries a client writes come first (leftmost) and prove nothing.
    const claimed = await ctx.call({
      method: 'GET',
      path: '/user',
      key: elsewhere,
      sensitive: [elsewhere],
      headers: {
        'x-forwarded-for': '198.51.100.7',
        forwarded: 'for=198.51.100.7',
        'x-real-ip': '198.51.100.7',
      },
      operationId: 'getUser',
    })
    expectError(
      claimed,
      403,
      { type: 'permission_error', code: 'key_restricted' },
      'for the same key from a client claiming an allowed address (X-Forwarded-For, Forwarded, X-Real-IP: 198.51.100.7)',
    )
    const admitted = await get(everywhere)
    const error = (admitted.response.json as { error?: { code?: string } } | undefined)?.error
    if (admitted.response.status === 403 && error?.code === 'key_restricted') {
      // Refused everywhere: a target that does not see the client address, unless it admits the client at a
      // loopback address it lists exactly (then it sees the client, and its ranges do not match).
      ensure(
        !(await admits(await key(LOOPBACK))),
        `a key restricted to ${EVERYWHERE.join(', ')} to admit the client, which a key restricted to ${LOOPBACK.join(', ')} admits (docs/decisions/003-api-keys.md: CIDR ranges)`,
        'refused with 403 key_restricted',
        admitted,
      )
      return ctx.skip(
        'the target refuses even a key allowed everywhere: it does not see the client address (an in-app mock)',
      )
    }
    expectStatus(admitted, 200, `for a key restricted to ${EVERYWHERE.join(', ')}`)
  },
}

/** An IPv4 address as dotted text. */
const dotted = (address: number) => [24, 16, 8, 0].map((shift) => (address >>> shift) & 0xff).join('.')

/**
 * `allowed_ips` as CIDR ranges, bit by bit: the client's IPv4 address is found one prefix length at a time (a key
 * restricted to the lower half of the range known so far is admitted or refused), then its /32 must admit and its
 * neighbour's /32 refuse. A target that matched ranges wrongly at any prefix length would lead the search astray
 * and fail at the end. Any address works: the check learns it, so it runs behind NAT too.
 */
const allowedIpPrefixes: ContractCheck = {
  id: 'authorization/allowed-ips-prefixes',
  area: 'authorization',
  group: 'Key restrictions',
  title:
    "matches allowed_ips ranges at every prefix length: the client's IPv4 address found bit by bit is admitted as a /32, its neighbour refused",
  async run(ctx) {
    const mock = ctx.mock
    if (!mock)
      return ctx.skip('needs keys with allowed_ips, made through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'allowed_ips prefixes')
    const admits = async (range: string | string[]): Promise<boolean> => {
      const { value } = await mock.createKey(account.id, {
        type: 'secret',
        name: `${name} ${range}`,
        restrictions: { allowed_ips: [range].flat() },
      })
      const exchange = await ctx.call({
        method: 'GET',
        path: '/user',
        key: value,
        sensitive: [value],
        operationId: 'getUser',
      })
      if (exchange.response.status === 200) return true
      expectError(
        exchange,
        403,
        { type: 'permission_error', code: 'key_restricted' },
        `for a key restricted to ${range}`,
      )
      return false
    }
    if (!(await admits('0.0.0.0/0'))) {
      // Unless the client is at 127.0.0.1, listed exactly: then the target sees it at an IPv4 address.
      ensure(
        !(await admits('127.0.0.1')),
        'a key restricted to 0.0.0.0/0 to admit the client, which a key restricted to 127.0.0.1 admits (docs/decisions/003-api-keys.md: CIDR ranges)',
        'refused with 403 key_restricted',
      )
      return ctx.skip(
        'the target does not see the client at an IPv4 address (an IPv6 client, or an in-app mock)',
      )
    }
    // Two prefix lengths a round: the range of this length, and both ranges of the next one it may lead to,
    // asked at the same time; the answers on the path taken decide, exactly as asked one after another.
    let address = 0
    const bit = (prefix: number) => (1 << (32 - prefix)) >>> 0
    for (let prefix = 1; prefix <= 32; prefix += 2) {
      const next = prefix + 1
      const [lower, ...after] = await inOrder([
        admits(`${dotted(address)}/${prefix}`),
        ...(next <= 32
          ? [admits(`${dotted(address)}/${next}`), admits(`${dotted((address | bit(prefix)) >>> 0)}/${next}`)]
          : []),
      ])
      if (!lower) address = (address | bit(prefix)) >>> 0
      if (next > 32) break
      if (!(lower ? after[0] : after[1])) address = (address | bit(next)) >>> 0
    }
    ensure(
      await admits(`${dotted(address)}/32`),
      `the client's address found prefix by prefix, ${dotted(address)}, to admit it as a /32`,
      'refused',
    )
    const neighbour = (address ^ 1) >>> 0
    // Any entry of the list admits, not only the first: the neighbour's /32 listed before the client's.
    ensure(
      await admits([`${dotted(neighbour)}/32`, `${dotted(address)}/32`]),
      `a key restricted to ${dotted(neighbour)}/32 and ${dotted(address)}/32 to admit the client at ${dotted(address)} (an address matching any entry of allowed_ips)`,
      'refused',
    )
    ensure(
      !(await admits(`${dotted(neighbour)}/32`)),
      `the neighbouring address ${dotted(neighbour)}/32 to refuse the client at ${dotted(address)}`,
      'admitted',
    )
    // An IPv4 client is also the IPv4-mapped IPv6 address ::ffff:a.b.c.d. Whether IPv6 ranges apply to it is the
    // target's choice; one that admits it under ::ffff:0:0/96 must read every spelling of that address alike, and
    // its prefixes bit by bit, also within a byte.
    if (!(await admits('::ffff:0:0/96'))) return
    const groups = (n: number) => `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
    const forms = [
      `::ffff:${dotted(address)}`,
      `::ffff:${groups(address)}/128`,
      `0:0:0:0:0:ffff:${groups(address)}`,
      `0:0:0:0:0:FFFF:${dotted(address)}/127`,
    ]
    // Prefixes inside a byte: an address 4 away shares the client's /125 but not its /126.
    const apart = (address ^ 4) >>> 0
    forms.push(`::ffff:${dotted(apart)}/125`)
    const outside = [`::ffff:${groups(neighbour)}/128`, `::ffff:${dotted(apart)}/126`]
    // Each range is a key of its own: all asked at once, judged in order.
    const admitted = await inOrder([...forms, ...outside].map(admits))
    for (const [i, form] of forms.entries())
      ensure(
        admitted[i],
        `${form} to admit the client at ${dotted(address)} (its IPv4-mapped address, as ::ffff:0:0/96 did; docs/decisions/003-api-keys.md: CIDR ranges)`,
        'refused',
      )
    for (const [i, range] of outside.entries())
      ensure(
        !admitted[forms.length + i],
        `${range} (mapped addresses without the client's) to refuse the client at ${dotted(address)} (docs/decisions/003-api-keys.md: CIDR ranges)`,
        'admitted',
      )
  },
}

/** What a key holding only the `read` or only the `write` group may do (one request per scope). */
const GROUP_PROBES: { method: string; path: string; scope: string; json?: unknown }[] = [
  { method: 'GET', path: '/agents', scope: 'agents:read' },
  { method: 'GET', path: '/call-logs', scope: 'call_logs:read' },
  { method: 'GET', path: '/analytics/calls', scope: 'analytics:read' },
  { method: 'GET', path: '/integrations', scope: 'integrations:read' },
  { method: 'POST', path: '/agents', scope: 'agents:write', json: {} },
  { method: 'PATCH', path: '/integrations/not_a_provider', scope: 'integrations:write', json: {} },
  { method: 'POST', path: '/team-members', scope: 'team_members:write', json: {} },
  { method: 'DELETE', path: '/call-logs/call_0ContractSuiteNone0', scope: 'resources:delete' },
]

const READ_GROUP = ['agents:read', 'call_logs:read', 'analytics:read', 'integrations:read']
/** What the `write` group grants, with the reads its scopes imply (docs/decisions/004-permissions.md). */
const WRITE_GROUP = [
  'agents:write',
  'integrations:write',
  'team_members:write',
  'resources:delete',
  'agents:read',
  'integrations:read',
]

/**
 * The group names `read` and `write` given at key creation grant exactly their scopes
 * (docs/decisions/004-permissions.md): each scope probed with one request, 403 naming the scope where the group does not grant it.
 */
const permissionGroups: ContractCheck = {
  id: 'authorization/permission-groups',
  area: 'authorization',
  group: 'Key restrictions',
  title: 'grants a key made with the group read, or write, exactly the scopes of that group',
  needs: ['write'],
  async run(ctx) {
    const mock = ctx.mock
    if (!mock)
      return ctx.skip('needs keys made with group names, through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'groups')
    for (const [group, granted] of [
      ['read', READ_GROUP],
      ['write', WRITE_GROUP],
    ] as const) {
      const key = (
        await mock.createKey(account.id, { type: 'secret', name: `${name} ${group}`, permissions: [group] })
      ).value
      for (const probe of GROUP_PROBES) {
        const exchange = await ctx.call({
          method: probe.method,
          path: probe.path,
          json: probe.json,
          key,
          sensitive: [key],
        })
        const why = `for ${probe.method} ${probe.path} with a key made with [${group}]`
        if (granted.includes(probe.scope))
          ensure(exchange.response.status !== 403, `no 403 ${why}`, '403', exchange)
        else
          expectError(
            exchange,
            403,
            { code: 'insufficient_permissions', required_permission: probe.scope },
            why,
          )
      }
    }
  },
}

/** Key restrictions and permission groups, with keys made on the fly through the mock's control plane. */
/**
 * `expires_at` (docs/decisions/003-api-keys.md): a key works until its expiry and gets 401 `invalid_api_key` after it.
 * The key expires a minute ahead on the mock's clock, which then moves past it. The request it failed to
 * authenticate leaves its `last_used_at` where the last admitted one put it (the control plane's ApiKey: "requests
 * it failed to authenticate, e.g. after revocation, do not update it"): an owner watching for a dead key's use
 * after a rotation must not read it as still in use.
 */
const expiresAt: ContractCheck = {
  id: 'authentication/expires-at',
  area: 'authentication',
  group: 'Key restrictions',
  title:
    'admits a key with expires_at ahead, and refuses it with 401 once the clock has passed expires_at, leaving its last_used_at as it was',
  needs: ['clock'],
  exclusive: true,
  async run(ctx) {
    const mock = ctx.mock
    if (!mock)
      return ctx.skip('needs a key with expires_at, made through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'expires_at')
    const now = Date.parse((await mock.clock()).now)
    const expires = iso(now + 60_000)
    const { id, value } = await mock.createKey(account.id, {
      type: 'secret',
      name,
      restrictions: { expires_at: expires },
    })
    const get = () =>
      ctx.call({ method: 'GET', path: '/user', key: value, sensitive: [value], operationId: 'getUser' })
    const lastUsed = async () => (await mock.listKeys(account.id)).find((key) => key.id === id)?.last_used_at
    const admitted = await get()
    expectStatus(admitted, 200, `for a key that expires at ${expires}, a minute ahead`)
    const used = await lastUsed()
    ensure(
      typeof used === 'string',
      'a last_used_at in the key list once the key authenticated a request',
      String(used),
      admitted,
    )
    await mock.advanceClock(61)
    const refused = await get()
    expectError(
      refused,
      401,
      { type: 'authentication_error', code: 'invalid_api_key' },
      `once the clock has passed expires_at ${expires}`,
    )
    const after = await lastUsed()
    ensure(
      after === used,
      `last_used_at still ${used}, the last request the key authenticated (the control plane's ApiKey: requests it failed to authenticate do not update it)`,
      String(after),
      refused,
    )
  },
}

export const keyRestrictionChecks: ContractCheck[] = [
  allowedIps,
  allowedIpPrefixes,
  permissionGroups,
  expiresAt,
]
