/**
 * How everyday clients, proxies and frameworks write a request that means the same (or must not be read as
 * meaning more): shared by the checks that send each form once (checks/request-forms.ts) and by exploration,
 * which sends them inside random sequences (explore/request-spelling.ts).
 */

/** Accept headers that take JSON, as clients send them (axios's default first). */
export const ACCEPTS = [
  'application/json, text/plain, */*',
  'application/json; charset=utf-8',
  '*/*',
  'application/*',
  'text/html;q=0.9, application/json;q=0.8',
] as const

/** Headers frameworks read to turn a POST into another method. */
export const OVERRIDES = ['x-http-method-override', 'x-http-method', 'x-method-override'] as const

/** `id` with its `_` and its first letter percent-encoded: the same URI path (RFC 3986, 2.3 and 6.2.2.2). */
export const encoded = (id: string) =>
  id
    .replace('_', '%5F')
    .replace(/[A-Za-z]/, (letter) => `%${letter.charCodeAt(0).toString(16).toUpperCase()}`)
