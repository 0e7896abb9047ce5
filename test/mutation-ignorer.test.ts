import { parseSync, traverse } from '@babel/core'
import { describe, expect, it } from 'vitest'
import { strykerPlugins } from '../scripts/mutation/free-text-ignorer.mjs'

const ignorer = strykerPlugins[0]?.value

/** The source text of every node the ignorer leaves out (the outermost of each subtree). */
function ignored(code: string): string[] {
  const ast = parseSync(code, { filename: 'x.ts', parserOpts: { plugins: ['typescript'] } })
  const found: string[] = []
  let inside: unknown
  if (!ast) throw new Error(`cannot parse ${code}`)
  traverse(ast, {
    enter(path) {
      if (inside) return
      if (ignorer?.shouldIgnore(path)) {
        inside = path.node
        const node = path.node
        found.push(code.slice(node.start ?? 0, node.end ?? 0))
      }
    },
    exit(path) {
      if (inside === path.node) inside = undefined
    },
  })
  return found
}

describe('the free-text ignorer of the mutation runs', () => {
  it.each([
    ["new ApiError(400, 'invalid_request_error', 'invalid_json', `Bad $" + '{x}.`)', ['`Bad $' + '{x}.`']],
    [
      "throw errors.invalidParameter('limit', 'limit must be 1 to 100.')",
      ["'limit'", "'limit must be 1 to 100.'"],
    ],
    ["errors.resourceNotFound('agent', id, 'agent_id')", ["'agent'", 'id', "'agent_id'"]],
    [
      "errors.conflict('member_already_exists', 'Already a member.', 'email')",
      ["'Already a member.'", "'email'"],
    ],
    [
      "problems.push({ param: 'voice', code: 'required', message: 'voice is required' })",
      ["message: 'voice is required'"],
    ],
    [
      "new ApiError(404, 'not_found_error', 'resource_not_found', m, param ? { param } : {})",
      ['m', 'param ? { param } : {}'],
    ],
    ["new ApiError(400, 't', 'c', m, { param })", ['m', '{ param }']],
    ["new ApiError(422, 't', 'c', m, { param: first, errors: list })", ['m', 'param: first']],
    [
      'const body = { ...(id !== undefined ? { request_id: id } : {}) }',
      ['...(id !== undefined ? { request_id: id } : {})'],
    ],
    [
      '/** words it @messageText */\nfunction describe(t) { return t.length > 3 ? "a" : "b" }',
      ['function describe(t) { return t.length > 3 ? "a" : "b" }'],
    ],
  ])('leaves out the free parts of %s', (code, expected) => {
    expect(ignored(code)).toEqual(expected)
  })

  it.each([
    "errors.rateLimited('burst', 40)",
    "errors.missingPermission('agents:write')",
    "new ApiError(403, 'permission_error', 'insufficient_permissions', m, { required_permission: s })",
    'errors.validationFailed(list)',
    "const code = 'invalid_json'",
    'function parse(t) { return t.length > 3 }',
  ])('keeps every mutant of %s, which a client can see', (code) => {
    expect(ignored(code).filter((text) => text !== 'm')).toEqual([])
  })
})
