import { expectError, expectStatus } from './failure.ts'
import type { ContractCheck } from './types.ts'

/** Every IPv4 and IPv6 address, in several spellings (halves, a single-address range, a mapped form). */
const EVERYWHERE = ['0.0.0.0/1', '128.0.0.0/1', '::/1', '8000::/1']
/** Documentation ranges (RFC 5737, RFC 3849): never the address of a real client. */
const NOWHERE = ['192.0.2.0/24', '198.51.100.7', '2001:db8::/32', '203.0.113.0/25']

/**
 * `allowed_ips` (decisions.md section 3): a key restricted to addresses the client cannot have is refused
 * with 403 `key_restricted`, one restricted to ranges that cover every address is admitted. The keys are
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
    const name = `Contract suite ${ctx.runId} allowed_ips`
    const account = await mock.createAccount({ plan: 'enterprise', name })
    ctx.defer(async () => {
      await mock.deleteAccount(account.id)
    })
    const key = async (ips: string[]) =>
      (
        await mock.createKey(account.id, {
          type: 'secret',
          name: `${name} ${ips.join(' ')}`,
          restrictions: { allowed_ips: ips },
        })
      ).value
    const elsewhere = await key(NOWHERE)
    const everywhere = await key(EVERYWHERE)
    const get = (value: string) =>
      ctx.call({ method: 'GET', path: '/user', key: value, sensitive: [value], operationId: 'getUser' })
    expectError(
      await get(elsewhere),
      403,
      { type: 'permission_error', code: 'key_restricted' },
      `for a key restricted to ${NOWHERE.join(', ')}`,
    )
    const admitted = await get(everywhere)
    const error = (admitted.response.json as { error?: { code?: string } } | undefined)?.error
    if (admitted.response.status === 403 && error?.code === 'key_restricted')
      return ctx.skip(
        'the target refuses even a key allowed everywhere: it does not see the client address (an in-app mock)',
      )
    expectStatus(admitted, 200, `for a key restricted to ${EVERYWHERE.join(', ')}`)
  },
}

/** Key restrictions made on the fly through the mock's control plane. */
export const keyRestrictionChecks: ContractCheck[] = [allowedIps]
