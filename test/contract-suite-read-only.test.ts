import { describe, expect, it } from 'vitest'
import { cannotWrite } from '../contracts/checks/cannot-write.ts'
import { otherOffset, sameMeaning } from '../contracts/checks/formats.ts'
import type { CheckCallInput } from '../contracts/checks/types.ts'

const KEY = `sk-svc-${'R'.repeat(40)}`

describe('cannotWrite: the writes a read-only run may send', () => {
  const write = (method: string, path: string, extra: Partial<CheckCallInput> = {}): CheckCallInput => ({
    method,
    path,
    ...extra,
  })

  it.each<[string, CheckCallInput]>([
    ['a POST to a collection without a key or a body', write('POST', '/agents', { key: null })],
    ['a DELETE without a key', write('delete', '/team-members/mem_0ContractSuiteNone0', { key: null })],
    [
      'a POST without a body to an ID no implementation holds',
      write('POST', '/agents/agt_0ContractSuiteNone0'),
    ],
    [
      'a DELETE with a query to such an ID',
      write('DELETE', '/call-logs/call_0ContractSuiteNone0?contract_unknown=1'),
    ],
    ['a PATCH of a slug outside the catalogue', write('PATCH', '/integrations/not_a_provider')],
    [
      'a PATCH with a text that is not JSON',
      write('PATCH', '/agents/agt_0ContractSuiteNone0', {
        body: 'not json',
        headers: { 'content-type': 'text/plain' },
      }),
    ],
    ['such an ID percent-encoded', write('DELETE', '/agents/agt%5F0ContractSuiteNone0')],
  ])('allows %s', (_, input) => {
    expect(cannotWrite(input, [KEY])).toBe(true)
  })

  it.each<[string, CheckCallInput]>([
    ['a POST to a collection with the key', write('POST', '/agents')],
    [
      'a POST to a collection without a key but with a body',
      write('POST', '/agents', { key: null, body: '{}' }),
    ],
    [
      'a JSON body to an ID that does not exist',
      write('PATCH', '/agents/agt_0ContractSuiteNone0', { json: {} }),
    ],
    [
      'a raw JSON body to an ID that does not exist',
      write('PATCH', '/agents/agt_0ContractSuiteNone0', { body: '{"name":"x"}' }),
    ],
    ['a PUT, even to an ID that does not exist', write('PUT', '/agents/agt_0ContractSuiteNone0')],
    ['a DELETE of a real ID', write('DELETE', '/agents/agt_kkQNJcKjbhCQthBo')],
    ['a DELETE of a collection', write('DELETE', '/agents')],
    [
      'an ID that does not exist in the middle of a path',
      write('POST', '/agents/agt_0ContractSuiteNone0/calls/x'),
    ],
    [
      'no Authorization but the key in the query',
      write('POST', `/agents?api_key=${encodeURIComponent(KEY)}`, { key: null }),
    ],
    [
      'no Authorization but the key in another header',
      write('POST', '/agents', { key: null, headers: { 'x-api-key': KEY } }),
    ],
    ['a raw Authorization header', write('POST', '/agents', { key: null, authorization: `Bearer ${KEY}` })],
    ['a GET (not a write: the runner lets it through anyway)', write('GET', '/agents')],
  ])('refuses %s', (_, input) => {
    expect(cannotWrite(input, [KEY])).toBe(false)
  })
})

describe('sameMeaning and otherOffset', () => {
  it.each<[unknown, unknown, boolean]>([
    [{ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }, true],
    [{ at: '2026-03-04T09:15:27Z' }, { at: '2026-03-04T09:15:27.000Z' }, true],
    [{ at: '2026-03-04T09:15:27Z' }, { at: '2026-03-04T09:15:28Z' }, false],
    [{ a: 1 }, { a: 1, b: null }, false],
    [{ a: null }, {}, false],
    [[1, 2], [2, 1], false],
    ['1', 1, false],
    ['x', 'x', true],
  ])('%j and %j: %s', (a, b, same) => {
    expect(sameMeaning(a, b)).toBe(same)
    expect(sameMeaning(b, a)).toBe(same)
  })

  it.each([
    ['2026-03-06T19:26:11Z', '2026-03-06t14:26:11.0-05:00'],
    ['2026-03-06T02:00:00.250Z', '2026-03-05t21:00:00.250-05:00'],
    ['2026-03-06T19:26:11.123456789+01:00', '2026-03-06t13:26:11.123456789-05:00'],
  ])('writes %s as %s, the same instant', (value, written) => {
    expect(otherOffset(value)).toBe(written)
    expect(Date.parse(written.replace('t', 'T'))).toBe(Date.parse(value))
  })

  it('leaves what is not a timestamp', () => {
    expect(otherOffset('completed')).toBeUndefined()
  })
})
