import { describe, expect, it } from 'vitest'
import { redactSecrets } from '../../mocks/engine/secrets.ts'

const RANDOM = 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7dEf0h'
const KEY = `sk-svc-${RANDOM}`

describe('redactSecrets', () => {
  it.each([
    [`/v1/${KEY}`, '/v1/sk-svc-...Ef0h'],
    [`/v1/pk-svc-${RANDOM}`, '/v1/pk-svc-...Ef0h'],
    [`/v1/SK-svc-${RANDOM}`, '/v1/SK-svc-...Ef0h'],
    [`/v1/Sk-SVC-${RANDOM.toUpperCase()}`, '/v1/Sk-SVC-...EF0H'],
    [`/v1/%73k-svc-${RANDOM}`, '/v1/sk-svc-...Ef0h'],
    [`/v1/%2573k-svc-${RANDOM}`, '/v1/sk-svc-...Ef0h'],
    [`/v1/${[...KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`, '/v1/sk-svc-...Ef0h'],
    [`No agent with id '%73k%2Dsvc%2D${RANDOM}'.`, "No agent with id 'sk-svc-...Ef0h'."],
    [`Unknown query parameter '${KEY}'.`, "Unknown query parameter 'sk-svc-...Ef0h'."],
  ])('redacts %s', (text, redacted) => {
    expect(redactSecrets(text)).toBe(redacted)
  })

  it.each([
    '/v1/agents/agt_8fK2mQx7Lr3Np9Ts',
    '/v1/agents/a%2Fb%20c',
    '/v1/%73k-svc-short',
    '100% of sk-svc-keys',
    '',
  ])('leaves %j as it was (no key in it)', (text) => {
    expect(redactSecrets(text)).toBe(text)
  })
})
