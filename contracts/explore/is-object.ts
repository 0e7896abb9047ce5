/** Whether a JSON value is an object (not null, not an array): what a body, an error or a list item is read as. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
