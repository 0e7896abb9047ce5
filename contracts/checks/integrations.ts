import { expectFields } from './agents.ts'
import { ensure, expectError, expectStatus, jsonObject, listData } from './failure.ts'
import type { ContractCheck } from './types.ts'

const group = 'Integrations'

/** Integrations: the catalog, and credentials that are stored but never returned. */
export const integrationChecks: ContractCheck[] = [
  {
    id: 'resources/integrations/catalog',
    area: 'resources',
    group,
    title: 'lists the whole catalog (in any order), the first and last readable alone, none with credentials',
    async run(ctx) {
      // A fixed catalogue, not objects clients create: its order is the implementation's (docs/decisions/011-allowed-forms.md).
      const slugs = ((ctx.contract.schema('IntegrationSlug') as { enum?: string[] }).enum ?? [])
        .slice()
        .sort()
      const list = await ctx.call({ method: 'GET', path: '/integrations', operationId: 'listIntegrations' })
      expectStatus(list, 200)
      const got = listData(list).map((i) => String(i.id))
      ensure(
        [...got].sort().join() === slugs.join(),
        `the catalog ${slugs.join(', ')}, each once, in any order`,
        got.join(', '),
        list,
      )
      ensure(jsonObject(list).has_more === false, 'has_more false', String(jsonObject(list).has_more), list)
      // Read alone: the first and the last entry (a lookup by slug serves them all alike).
      const items = listData(list)
      for (const item of new Set([items[0], items.at(-1)])) {
        if (!item) continue
        const one = await ctx.call({
          method: 'GET',
          path: `/integrations/${String(item.id)}`,
          operationId: 'getIntegration',
        })
        expectStatus(one, 200)
        ensure(
          JSON.stringify(jsonObject(one)) === JSON.stringify(item),
          `GET /integrations/${String(item.id)} equal to its list entry`,
          'different',
          one,
        )
      }
      const unknown = await ctx.call({
        method: 'GET',
        path: '/integrations/not_a_provider',
        operationId: 'getIntegration',
      })
      expectError(unknown, 404, { code: 'resource_not_found', param: 'integration_id' })
    },
  },
  {
    id: 'resources/integrations/credentials',
    area: 'resources',
    group,
    title: 'stores credentials without ever returning them, shows only the hint, and disconnects with null',
    needs: ['write', 'own-account'],
    async run(ctx) {
      const secret = `contract-${ctx.runId}-Cr3dentialValue9Zq`
      const other = `contract-${ctx.runId}-SecondValue4Lm`
      // The hint's key sorts first by code point ("Z" before "b"), last once lower-cased: a target that sorts the
      // keys by another collation shows the other value's end.
      const credentials = { bot_token: other, Z_signing_secret: secret }
      const config = { channel: '#contract-suite', notify_on_failure: true }
      const patched = await ctx.call({
        method: 'PATCH',
        path: '/integrations/slack',
        json: { enabled: true, config, credentials },
        sensitive: [secret, other],
        operationId: 'updateIntegration',
      })
      expectStatus(patched, 200)
      const body = jsonObject(patched)
      expectFields(
        body,
        {
          id: 'slack',
          enabled: true,
          status: 'connected',
          config,
          credential_hint: `...${secret.slice(-4)}`,
        },
        'integration',
        patched,
      )
      ensure(
        typeof body.connected_at === 'string',
        'connected_at set',
        JSON.stringify(body.connected_at),
        patched,
      )
      const read = await ctx.call({
        method: 'GET',
        path: '/integrations/slack',
        sensitive: [secret, other],
        operationId: 'getIntegration',
      })
      ensure(
        JSON.stringify(jsonObject(read)) === JSON.stringify(body),
        'GET to return the updated integration',
        'different',
        read,
      )
      await ctx.call({
        method: 'GET',
        path: '/integrations',
        sensitive: [secret, other],
        operationId: 'listIntegrations',
      })
      const disconnected = await ctx.call({
        method: 'PATCH',
        path: '/integrations/slack',
        json: { credentials: null, config: {} },
        operationId: 'updateIntegration',
      })
      expectStatus(disconnected, 200)
      const after = jsonObject(disconnected)
      expectFields(
        after,
        { status: 'not_connected', credential_hint: null, connected_at: null, enabled: true },
        'integration',
        disconnected,
      )
      ensure(
        JSON.stringify(after.config) === '{}',
        'config {} replacing the stored config as a whole',
        JSON.stringify(after.config),
        disconnected,
      )
    },
  },
]
