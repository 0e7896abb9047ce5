/** An absolute URL with nothing MSW reads as a pattern in it (no `*`, `:param`, `(`...): scheme, host, port, path. */
const PLAIN_ABSOLUTE_URL = /^https?:\/\/[A-Za-z0-9.-]+(?::\d+)?(?:\/[A-Za-z0-9._~-]+)*$/
const REGEXP_SYNTAX = /[.*+?^${}()|[\]\\/]/g

/**
 * What an MSW handler for everything under `${mountPoint}${prefix}/` matches: MSW's own pattern
 * (`${mountPoint}${prefix}/*`), or, for a plain absolute mount point, the regular expression MSW compiles that
 * pattern to (case-insensitive, the rest of the path as its one parameter), built once here instead of on
 * every request.
 */
export function requestPattern(mountPoint: string, prefix: string): string | RegExp {
  const root = `${mountPoint}${prefix}`
  if (!PLAIN_ABSOLUTE_URL.test(root)) return `${root}/*`
  return new RegExp(`^${root.replace(REGEXP_SYNTAX, '\\$&')}/(.*)$`, 'i')
}
