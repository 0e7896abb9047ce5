/** A bare item of RFC 8941 (Structured Field Values): the subset HTTP rate-limit fields use. */
export type BareItem = string | number | boolean | { token: string }

/** A list member: an item with its parameters, in order. */
export interface ListMember {
  value: BareItem
  params: Map<string, BareItem>
}

export type ParseResult = { ok: true; members: ListMember[] } | { ok: false; error: string }

const TOKEN_START = /[A-Za-z*]/
const TOKEN_CHAR = /[A-Za-z0-9!#$%&'*+\-.^_`|~:/]/
const KEY_START = /[a-z*]/
const KEY_CHAR = /[a-z0-9_\-.*]/

/** Parses a Structured Field List (RFC 8941 section 4.2.1) of items; inner lists are refused. */
export function parseList(input: string): ParseResult {
  const text = input.replace(/^ +| +$/g, '')
  let i = 0
  const members: ListMember[] = []
  const fail = (error: string): ParseResult => ({ ok: false, error: `${error} at position ${i}` })

  function bareItem(): BareItem | string[] {
    const c = text[i] ?? ''
    if (c === '"') {
      i++
      let out = ''
      while (i < text.length) {
        const ch = text[i++] as string
        if (ch === '\\') {
          const next = text[i++]
          if (next !== '"' && next !== '\\') return ['bad escape in string']
          out += next
        } else if (ch === '"') return out
        else if (ch < ' ' || ch > '~') return ['invalid character in string']
        else out += ch
      }
      return ['unterminated string']
    }
    if (c === '-' || /[0-9]/.test(c)) {
      const match = /^-?[0-9]{1,15}(\.[0-9]{1,3})?/.exec(text.slice(i))
      if (!match) return ['bad number']
      i += match[0].length
      return Number(match[0])
    }
    if (c === '?') {
      const b = text[i + 1]
      if (b !== '0' && b !== '1') return ['bad boolean']
      i += 2
      return b === '1'
    }
    if (TOKEN_START.test(c)) {
      let token = ''
      while (i < text.length && TOKEN_CHAR.test(text[i] as string)) token += text[i++]
      return { token }
    }
    return [c === '' ? 'unexpected end' : `unexpected '${c}'`]
  }

  function params(): Map<string, BareItem> | string[] {
    const out = new Map<string, BareItem>()
    while (text[i] === ';') {
      i++
      while (text[i] === ' ') i++
      if (!KEY_START.test(text[i] ?? '')) return ['bad parameter key']
      let key = ''
      while (i < text.length && KEY_CHAR.test(text[i] as string)) key += text[i++]
      let value: BareItem = true
      if (text[i] === '=') {
        i++
        const item = bareItem()
        if (Array.isArray(item)) return item
        value = item
      }
      out.set(key, value)
    }
    return out
  }

  if (text === '') return { ok: true, members }
  while (i < text.length) {
    if (text[i] === '(') return fail('inner lists are not expected')
    const value = bareItem()
    if (Array.isArray(value)) return fail(value[0] ?? 'bad item')
    const parameters = params()
    if (Array.isArray(parameters)) return fail(parameters[0] ?? 'bad parameters')
    members.push({ value, params: parameters })
    while (text[i] === ' ' || text[i] === '\t') i++
    if (i >= text.length) return { ok: true, members }
    if (text[i] !== ',') return fail(`expected ',' but found '${text[i]}'`)
    i++
    while (text[i] === ' ' || text[i] === '\t') i++
    if (i >= text.length) return fail('trailing comma')
  }
  return { ok: true, members }
}
