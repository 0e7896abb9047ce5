import { describe, expect, it } from 'vitest'
import type { OpenApiDocument } from '../../mocks/engine/contract/document.ts'
import { createRouter } from '../../mocks/engine/contract/router.ts'
import { v1Document } from '../../openapi/generated/v1.document.ts'

const summary = (found: ReturnType<ReturnType<typeof createRouter>['match']>) =>
  found.kind === 'operation'
    ? { kind: found.kind, operationId: found.operation.operationId, params: found.params }
    : found

const CASES = [
  ['GET', '/user', { kind: 'operation', operationId: 'getUser', params: {} }],
  ['get', '/user', { kind: 'operation', operationId: 'getUser', params: {} }],
  ['HEAD', '/user', { kind: 'operation', operationId: 'getUser', params: {} }],
  ['GET', '/agents/', { kind: 'operation', operationId: 'listAgents', params: {} }],
  ['POST', '/agents', { kind: 'operation', operationId: 'createAgent', params: {} }],
  ['GET', '/agents/agt_1', { kind: 'operation', operationId: 'getAgent', params: { agent_id: 'agt_1' } }],
  ['GET', '/agents/agt_2', { kind: 'operation', operationId: 'getAgent', params: { agent_id: 'agt_2' } }],
  ['GET', '/agents/a%20b', { kind: 'operation', operationId: 'getAgent', params: { agent_id: 'a b' } }],
  ['PUT', '/user', { kind: 'method-not-allowed', allow: ['GET', 'HEAD'] }],
  ['GET', '/nowhere', { kind: 'not-found' }],
  ['GET', '/agents/agt_1/extra', { kind: 'not-found' }],
] as const

describe('router.match', () => {
  it('routes every request alike, whether its path was routed before or not, and however many paths came between', () => {
    const router = createRouter(v1Document as unknown as OpenApiDocument)
    for (let round = 0; round < 3; round++) {
      for (const [method, path, want] of CASES) expect(summary(router.match(method, path))).toEqual(want)
      // More distinct paths than the router keeps: the cache starts again in between.
      for (let i = 0; i < 600; i++) router.match('GET', `/agents/agt_${round}_${i}`)
    }
    // A path routed before with another method, and a templated path with other parameters.
    expect(summary(router.match('DELETE', '/agents/agt_9'))).toMatchObject({ operationId: 'deleteAgent' })
    expect(summary(router.match('GET', '/agents/agt_9'))).toEqual({
      kind: 'operation',
      operationId: 'getAgent',
      params: { agent_id: 'agt_9' },
    })
  })
})
