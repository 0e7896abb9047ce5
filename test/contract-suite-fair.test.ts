import { describe, expect, it } from 'vitest'
import { runChecks } from '../contracts/runner/run-checks.ts'
import { engineFetch } from './mutants/engine-fetch.ts'
import {
  ALLOWED_FORMS,
  type AllowedForm,
  type Alteration,
  alteredFetch,
  alteredMock,
} from './support/altered-mock.ts'

// docs/decisions/011-allowed-forms.md: where the spec leaves a choice, the suite accepts every allowed form. Each test runs
// the whole suite (destructive checks and rate limits included) against the mock with its answers rewritten
// into another allowed form, and expects no failure.

const BASE_URL = 'http://fair.test/v1'

async function runAgainst(alterations: readonly Alteration[]) {
  const { fetch } = await alteredMock(BASE_URL, alterations)
  const result = await runChecks({
    baseUrl: BASE_URL,
    provision: 'mock',
    destructive: true,
    fetch,
    exploreSequences: 5,
  })
  const failed = result.outcomes
    .filter((o) => o.status === 'failed')
    .map((o) => `${o.check.id}: ${o.failure?.expected} / ${o.failure?.actual}`.slice(0, 300))
  return { result, failed }
}

/** A sample of what an alteration does to real answers, so that no test passes by altering nothing. */
async function sample(form: AllowedForm) {
  const { platform, fetch } = await alteredMock(BASE_URL, [ALLOWED_FORMS[form]()])
  const key = platform.demo.secretKey as string
  const get = (path: string, auth = true) =>
    fetch(`${BASE_URL}${path}`, { headers: auth ? { authorization: `Bearer ${key}` } : {} })
  const created = await fetch(`${BASE_URL}/agents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Fair',
      voice: { provider: 'openai', voice_id: 'alloy' },
      llm: { provider: 'openai', model: 'gpt-4o' },
    }),
  })
  return {
    createdAt: (await (await get('/user')).json()).created_at as string,
    challenge: (await get('/user', false)).headers.get('www-authenticate'),
    location: created.headers.get('location'),
    error: (await (await get('/agents/agt_0Unknown0')).json()).error as Record<string, unknown>,
    integrations: ((await (await get('/integrations')).json()).data as { id: string }[]).map((i) => i.id),
  }
}

describe('the contract suite against every allowed form (docs/decisions/011-allowed-forms.md)', () => {
  it.each([
    [
      'fractional-timestamps',
      (s: Awaited<ReturnType<typeof sample>>) => expect(s.createdAt).toMatch(/\.000Z$/),
    ],
    [
      'nano-timestamps',
      (s: Awaited<ReturnType<typeof sample>>) => expect(s.createdAt).toMatch(/:\d\d\.\d+Z$/),
    ],
    ['bare-bearer', (s: Awaited<ReturnType<typeof sample>>) => expect(s.challenge).toBe('Bearer')],
    [
      'relative-location',
      (s: Awaited<ReturnType<typeof sample>>) => expect(s.location).toMatch(/^\/v1\/agents\/agt_/),
    ],
    [
      'no-optional-error-fields',
      (s: Awaited<ReturnType<typeof sample>>) =>
        expect(Object.keys(s.error).sort()).toEqual(['code', 'message', 'type']),
    ],
    [
      'shuffled-integrations',
      (s: Awaited<ReturnType<typeof sample>>) => expect(s.integrations.at(0)).toBe('webhook'),
    ],
  ] as const)(
    'passes every check when the target answers with %s',
    async (form, altered) => {
      altered(await sample(form))
      const { result, failed } = await runAgainst([ALLOWED_FORMS[form]()])
      expect(failed).toEqual([])
      expect(result.outcomes.filter((o) => o.status === 'passed').length).toBeGreaterThan(100)
    },
    60_000,
  )

  it('passes every check when the target makes every allowed choice at once', async () => {
    const all = (Object.keys(ALLOWED_FORMS) as AllowedForm[])
      .filter((form) => form !== 'fractional-timestamps')
      .map((form) => ALLOWED_FORMS[form]())
    const { failed } = await runAgainst(all)
    expect(failed).toEqual([])
  }, 60_000)

  it.each([
    [
      'timestamps with an offset instead of Z',
      {
        body: (body: unknown) =>
          JSON.parse(JSON.stringify(body).replace(/"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)Z"/g, '"$1+00:00"')),
      },
      'responses/getUser',
    ],
    [
      'a Basic challenge on 401',
      {
        headers: (h: Headers): void => {
          if (h.has('www-authenticate')) h.set('www-authenticate', 'Basic realm="api"')
        },
      },
      'authentication/missing-challenge',
    ],
    [
      'a Location pointing at the collection',
      {
        headers: (h: Headers): void => {
          if (h.has('location')) h.set('location', '/v1/agents')
        },
      },
      'resources/agents/create-read',
    ],
    [
      'a wrong error.param',
      {
        body: (body: unknown) => {
          const error = (body as { error?: Record<string, unknown> }).error
          return error?.param ? { error: { ...error, param: 'something_else' } } : body
        },
      },
      'resources/agents/unknown',
    ],
  ] as const)(
    'still fails a form the contract does not allow: %s',
    async (_, alteration, check) => {
      const { failed } = await runAgainst([alteration as Alteration])
      expect(
        failed.some((f) => f.startsWith(`${check}:`)),
        failed.join('\n'),
      ).toBe(true)
    },
    60_000,
  )

  it('rewrites nothing for the unmodified mock (the wrapper itself is transparent)', async () => {
    const { platform } = await alteredMock(BASE_URL, [])
    const direct = engineFetch(() => platform, BASE_URL)
    const through = alteredFetch(direct, [])
    const key = platform.demo.secretKey as string
    const a = await (
      await direct(`${BASE_URL}/integrations`, { headers: { authorization: `Bearer ${key}` } })
    ).json()
    const b = await (
      await through(`${BASE_URL}/integrations`, { headers: { authorization: `Bearer ${key}` } })
    ).json()
    expect(b).toEqual(a)
  })
})
