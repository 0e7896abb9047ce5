/** A mistake in how the command was called: printed as one line with a hint, exit code 2. */
export class UsageError extends Error {}

/** A sentence and what to do next: `<message>. See --help.`, the message closed by one full stop. */
export function withHint(message: string, hint: string): string {
  const sentence = message.trim()
  return `${/[.?!]$/.test(sentence) ? sentence : `${sentence}.`} ${hint}`
}

/**
 * What `parseArgs` threw, as one sentence of ours: its messages run on about positional arguments, or stop
 * without a full stop. Anything that is not a parsing error is returned as it is.
 */
export function argumentProblem(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code
  const message = error instanceof Error ? error.message : String(error)
  const quoted = /'([^']*)'/.exec(message)?.[1]
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) return `Unknown option '${quoted}'.`
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted !== undefined)
    return `Unexpected argument '${quoted}': this command takes options only.`
  const first = message.split('\n')[0]?.trim() || 'Bad arguments'
  return /[.?!]$/.test(first) ? first : `${first}.`
}

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
