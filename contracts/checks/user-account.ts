import { ensure, expectStatus, jsonObject } from './failure.ts'
import { scratchAccount } from './fixtures.ts'
import { instant } from './formats.ts'
import type { ContractCheck } from './types.ts'

/**
 * GET /user "returns the user (account) that owns the API key": the account's own ID, plan and creation, the same
 * whichever of its keys asks, not the key's. The keys are made a second after the account, so that a
 * `created_at` taken from the key would show.
 */
export const userAccountCheck: ContractCheck = {
  id: 'resources/user/account',
  area: 'resources',
  group: 'User',
  title:
    "answers GET /user with the account's ID, plan and created_at, the same for each of its keys, whenever the key was made",
  needs: ['own-account'],
  async run(ctx) {
    const mock = ctx.mock
    if (!mock) return ctx.skip('needs an account made through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'user')
    await ctx.wait(1, "a second to pass, so that the account's keys are younger than the account")
    const keys = [
      (await mock.createKey(account.id, { type: 'secret', name })).value,
      (await mock.createKey(account.id, { type: 'publishable', name })).value,
    ]
    for (const [i, key] of keys.entries()) {
      const exchange = await ctx.call({
        method: 'GET',
        path: '/user',
        key,
        sensitive: keys,
        operationId: 'getUser',
        fresh: true,
      })
      const which = i === 0 ? 'a secret key' : 'a publishable key'
      expectStatus(exchange, 200, `for GET /user with ${which} made after the account`)
      const user = jsonObject(exchange)
      const same =
        user.id === account.id &&
        user.plan === account.plan &&
        Math.floor(instant(user.created_at) / 1000) === Math.floor(instant(account.created_at) / 1000)
      ensure(
        same,
        `the account ${account.id} (plan ${account.plan}, created ${account.created_at}) for ${which}`,
        `${String(user.id)} (plan ${String(user.plan)}, created ${String(user.created_at)})`,
        exchange,
      )
    }
  },
}
