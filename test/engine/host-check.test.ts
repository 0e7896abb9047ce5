import { describe, expect, it } from 'vitest'
import { createHostCheck, parseAllowedHost } from '../../mocks/engine/control/host-check.ts'

describe('createHostCheck', () => {
  const allowed = createHostCheck(['mock.internal', '.dev.example', 'mybox'])

  it.each([
    // No Host at all: not a browser (every browser sends one), nothing to rebind.
    [undefined, true],
    ['localhost', true],
    ['localhost:4010', true],
    ['LOCALHOST:4010', true],
    ['localhost.:4010', true],
    ['app.localhost:5173', true],
    ['a.b.localhost', true],
    ['127.0.0.1:4010', true],
    ['127.0.0.2', true],
    ['[::1]:4010', true],
    ['[0:0:0:0:0:0:0:1]', true],
    // An address is never the product of a DNS answer: no rebinding (Vite and webpack-dev-server agree).
    ['192.168.1.20:4010', true],
    ['[fd00::7]:4010', true],
    ['0x7f.1:4010', true],
    ['mock.internal:4010', true],
    ['MOCK.INTERNAL', true],
    ['dev.example', true],
    ['api.dev.example:443', true],
    ['a.b.dev.example', true],
    ['mybox', true],
    ['evil.example:4100', false],
    ['evil.example', false],
    ['evil.example.', false],
    ['localhost.evil.example', false],
    ['evil-localhost', false],
    ['xlocalhost', false],
    ['127.0.0.1.nip.io', false],
    ['mock.internal.evil.example', false],
    ['evilmock.internal', false],
    ['notdev.example', false],
    ['dev.example.evil', false],
    ['mybox.evil.example', false],
    ['', false],
    [' ', false],
    ['localhost, evil.example', false],
    ['evil.example, localhost', false],
    ['user@localhost', false],
    ['localhost/path', false],
    ['localhost:99999', false],
    ['localhost:4010:1', false],
    ['[::1', false],
    ['[evil.example]', false],
    ['evil.example\\@localhost', false],
    ['localhost\u0000.evil.example', false],
  ])('answers Host %j: %s', (host, expected) => {
    expect(allowed(host)).toBe(expected)
  })

  it('allows only loopback names and addresses when the user allows nothing else', () => {
    const check = createHostCheck([])
    expect(check('localhost:1')).toBe(true)
    expect(check('10.0.0.1')).toBe(true)
    expect(check('mock.internal')).toBe(false)
  })
})

describe('parseAllowedHost', () => {
  it.each([
    ['a.example', 'a.example'],
    ['A.Example', 'a.example'],
    ['.dev.example', '.dev.example'],
    ['mybox', 'mybox'],
    ['host.docker.internal', 'host.docker.internal'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
  ])('accepts %j as %j', (value, normalised) => {
    expect(parseAllowedHost(value)).toBe(normalised)
  })

  it.each([
    '',
    '*',
    '.',
    '.example',
    '.com',
    'http://a.example',
    'a.example:4010',
    'a.example/',
    'a b',
    '*.example.com',
    '..a.example',
  ])('refuses %j', (value) => {
    expect(parseAllowedHost(value)).toBeUndefined()
  })
})
