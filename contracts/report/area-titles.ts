import { AREAS } from '../checks/types.ts'

/** The areas a report shows, in order, each with its title (`{ authentication: 'Authentication', ... }`). */
export type AreaTitles = Readonly<Record<string, string>>

/** The contract suite's areas, then `setup` (a run that could not start). */
export const SUITE_AREA_TITLES: AreaTitles = { ...AREAS, setup: 'Setup' }

/** The areas of `titles` that hold at least one entry, in the order of `titles`. */
export function areasIn(titles: AreaTitles, entries: readonly { area: string }[]): string[] {
  return Object.keys(titles).filter((area) => entries.some((e) => e.area === area))
}
