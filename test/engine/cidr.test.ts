import { describe, expect, it } from 'vitest'
import { cidrContains, parseCidr, parseIp } from '../../mocks/engine/cidr.ts'

/** 16 bytes from eight 16-bit groups. */
const v6 = (...groups: number[]) => Uint8Array.from(groups.flatMap((g) => [g >> 8, g & 0xff]))
/** An IPv4 address as its IPv4-mapped IPv6 bytes. */
const mapped = (a: number, b: number, c: number, d: number) =>
  Uint8Array.from([...Array(10).fill(0), 255, 255, a, b, c, d])

/**
 * The parser behind `allowed_ips`. The contract suite sees it only through an IPv4 client (the ranges that hold it
 * or not) and through the control plane's 201 for a valid range; malformed ranges are refused only when a key
 * is made, and IPv6 spellings meet an IPv4 client only as IPv4-mapped addresses: their parse is tested here.
 */
describe('parseIp', () => {
  it.each([
    ['127.0.0.1', mapped(127, 0, 0, 1)],
    [' 10.0.0.255 ', mapped(10, 0, 0, 255)],
    ['2001:db8::1', v6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1)],
    ['2001:DB8:0:0:0:0:0:A', v6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0xa)],
    ['2001:db8:1:2:3:4::5', v6(0x2001, 0xdb8, 1, 2, 3, 4, 0, 5)],
    ['::', v6(0, 0, 0, 0, 0, 0, 0, 0)],
    ['::1', v6(0, 0, 0, 0, 0, 0, 0, 1)],
    ['fe80::', v6(0xfe80, 0, 0, 0, 0, 0, 0, 0)],
    ['::ffff:192.0.2.1', mapped(192, 0, 2, 1)],
    ['::ffff:c000:201', mapped(192, 0, 2, 1)],
    [
      '64:ff9b::198.51.100.7',
      Uint8Array.from([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0, 198, 51, 100, 7]),
    ],
    ['[2001:db8::1]', v6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1)],
    ['fe80::1%eth0', v6(0xfe80, 0, 0, 0, 0, 0, 0, 1)],
  ])('reads %s', (text, bytes) => {
    expect(parseIp(text)).toEqual(bytes)
  })

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '1.2.3.-1',
    '1x.2.3.4',
    '1.2.3.4x',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    'a::b::c',
    '1:2:3:4::5:6:7:8',
    'g::1',
    '12345::1',
    '::ffff:1.2.3',
    '::ffff:300.1.1.1',
    'localhost',
  ])('refuses %j', (text) => {
    expect(parseIp(text)).toBeNull()
  })
})

describe('parseCidr', () => {
  it('reads a prefix, counting IPv4 prefixes in the mapped range', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ bytes: mapped(10, 0, 0, 0), prefix: 104 })
    expect(parseCidr('2001:db8::/32')).toEqual({ bytes: v6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), prefix: 32 })
    expect(parseCidr('198.51.100.7')?.prefix).toBe(128)
    expect(parseCidr('2001:db8::1')?.prefix).toBe(128)
    expect(parseCidr('::ffff:0:0/96')?.prefix).toBe(96)
    expect(parseCidr('0.0.0.0/0')?.prefix).toBe(96)
  })

  it.each([
    '10.0.0.0/33',
    '2001:db8::/129',
    '10.0.0.0/-1',
    '10.0.0.0/x',
    '10.0.0.0/8a',
    '10.0.0.0/1234',
    '/8',
    'x/8',
  ])('refuses %j', (text) => {
    expect(parseCidr(text)).toBeNull()
  })
})

describe('cidrContains', () => {
  const contains = (range: string, ip: string) =>
    cidrContains(parseCidr(range) as never, parseIp(ip) as Uint8Array)

  it('compares the prefix bit by bit, in whole and partial bytes', () => {
    expect(contains('10.0.0.0/8', '10.255.1.2')).toBe(true)
    expect(contains('10.0.0.0/8', '11.0.0.0')).toBe(false)
    expect(contains('192.168.0.0/23', '192.168.1.9')).toBe(true)
    expect(contains('192.168.0.0/23', '192.168.2.9')).toBe(false)
    expect(contains('2001:db8::/33', '2001:db8:7fff::1')).toBe(true)
    expect(contains('2001:db8::/33', '2001:db8:8000::1')).toBe(false)
    expect(contains('0.0.0.0/0', '203.0.113.9')).toBe(true)
    expect(contains('198.51.100.7', '198.51.100.7')).toBe(true)
    expect(contains('198.51.100.7', '198.51.100.6')).toBe(false)
  })

  it('holds an IPv4 client in the IPv6 ranges of its IPv4-mapped address', () => {
    expect(contains('::ffff:0:0/96', '127.0.0.1')).toBe(true)
    expect(contains('::ffff:127.0.0.1/128', '127.0.0.1')).toBe(true)
    expect(contains('::/1', '127.0.0.1')).toBe(true)
    expect(contains('8000::/1', '127.0.0.1')).toBe(false)
    expect(contains('2001:db8::/32', '127.0.0.1')).toBe(false)
  })
})
