import { crc32 } from 'node:zlib'

/**
 * One line of a state file: the CRC-32 of the JSON text (8 hex digits), a space, the JSON text, a newline.
 * The checksum tells a line written whole from one cut short by a crash, or damaged since.
 */
export function encodeLine(value: unknown): string {
  const json = JSON.stringify(value)
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`
}

export type DecodedLine = { ok: true; value: unknown } | { ok: false; problem: string }

/** The value of a line (without its newline), or what is wrong with it. */
export function decodeLine(line: string): DecodedLine {
  const space = line.indexOf(' ')
  if (space !== 8 || !/^[0-9a-f]{8}$/.test(line.slice(0, 8)))
    return { ok: false, problem: 'it does not start with a checksum' }
  const json = line.slice(9)
  if (crc32(json).toString(16).padStart(8, '0') !== line.slice(0, 8))
    return { ok: false, problem: 'its checksum does not match its content' }
  try {
    return { ok: true, value: JSON.parse(json) }
  } catch {
    return { ok: false, problem: 'its content is not JSON' }
  }
}
