/** A mistake in how the command was called: printed as one line with a hint, exit code 2. */
export class UsageError extends Error {}

/** Parses an integer flag within bounds, or throws a UsageError naming the flag. */
export function integerFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, got '${value}'.`)
  const number = Number(value)
  if (number < min || number > max)
    throw new UsageError(`--${name} must be between ${min} and ${max}, got ${number}.`)
  return number
}

/** Parses a flag that takes one of a few words. */
export function choiceFlag<T extends string>(
  name: string,
  value: string | undefined,
  fallback: T,
  choices: readonly T[],
): T {
  if (value === undefined) return fallback
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got '${value}'.`)
  return value as T
}
