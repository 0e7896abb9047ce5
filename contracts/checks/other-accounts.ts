import { MockControlError } from '../provision/mock-control.ts'
import { ensure, expectError, expectStatus, jsonObject } from './failure.ts'
import { agentBody, inviteBody, scratchAccount } from './fixtures.ts'
import type { ContractCheck } from './types.ts'

/**
 * Each account sees its own objects only. The contract's order of checks: "6. **404** resource: the path ID does
 * not exist in the key's account", so an object of another account is, to this key, one that does not exist:
 * reading, changing or deleting it answers 404 and leaves it as it was. An implementation that looks an object
 * up by its ID alone (and checks the account on lists only) lets any key read and change every account's objects.
 */
export const otherAccountsCheck: ContractCheck = {
  id: 'authorization/other-accounts',
  area: 'authorization',
  group: 'Accounts',
  title:
    "answers 404 to a read, change or deletion of another account's agent, team member and call log, and leaves them as they were",
  needs: ['write', 'own-account'],
  async run(ctx) {
    const mock = ctx.mock
    if (!mock)
      return ctx.skip('needs a second account made through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'other account')
    const { value: theirs } = await mock.createKey(account.id, { type: 'secret', name })
    const asThem = (method: string, path: string, operationId: string, json?: unknown) =>
      ctx.call({ method, path, json, key: theirs, sensitive: [theirs], operationId })
    const agent = await asThem('POST', '/agents', 'createAgent', agentBody(ctx))
    expectStatus(agent, 201, 'for a valid create-agent body in the other account')
    const member = await asThem('POST', '/team-members', 'inviteTeamMember', inviteBody(ctx))
    expectStatus(member, 201, 'for a valid invitation in the other account')
    const objects = [
      {
        path: `/agents/${jsonObject(agent).id}`,
        param: 'agent_id',
        kind: 'Agent',
        patch: { name: 'Not mine' },
      },
      {
        path: `/team-members/${jsonObject(member).id}`,
        param: 'member_id',
        kind: 'TeamMember',
        patch: { role: 'viewer' },
      },
    ]
    let call: Record<string, unknown> | undefined
    try {
      call = await mock.placeCall(account.id, { agent_id: jsonObject(agent).id, ring_seconds: 30 })
    } catch (error) {
      if (!(error instanceof MockControlError)) throw error
      ctx.note(
        `the control plane placed no call (${error.message.slice(0, 80)}): no call log of the other account tried`,
      )
    }
    const calls = call ? [{ path: `/call-logs/${call.id}`, param: 'call_log_id', kind: 'CallLog' }] : []
    const theirObjects = [...objects, ...calls]
    const before = new Map<string, unknown>()
    for (const object of theirObjects) {
      const read = await asThem('GET', object.path, `get${object.kind}`)
      expectStatus(read, 200, `for GET ${object.path} with the other account's own key`)
      before.set(object.path, jsonObject(read))
    }
    const notFound = { type: 'not_found_error', code: 'resource_not_found' } as const
    for (const object of theirObjects) {
      const ops = ctx.contract.operations.filter(
        (op) => op.path.replace(/\{[^}]+\}$/, '') === object.path.replace(/[^/]+$/, ''),
      )
      for (const operation of ops) {
        const method = operation.method.toUpperCase()
        const patch = 'patch' in object ? object.patch : undefined
        const exchange = await ctx.call({
          method,
          path: object.path,
          json: method === 'PATCH' ? patch : undefined,
          operationId: operation.operationId,
        })
        expectError(
          exchange,
          404,
          { ...notFound, param: object.param },
          `for ${method} ${object.path} (an object of another account) with this account's key`,
        )
      }
    }
    for (const object of theirObjects) {
      const read = await asThem('GET', object.path, `get${object.kind}`)
      expectStatus(
        read,
        200,
        `for GET ${object.path} with its own account's key, after this account's key tried it`,
      )
      // A call log moves on by itself (it rings, then talks): only the other objects are compared whole.
      const shown = (value: unknown) =>
        JSON.stringify(object.kind === 'CallLog' ? { id: (value as { id?: unknown }).id } : value)
      const was = shown(before.get(object.path))
      const now = shown(jsonObject(read))
      ensure(now === was, `${object.path} as it was`, now, read)
    }
  },
}
