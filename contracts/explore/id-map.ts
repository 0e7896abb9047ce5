/** Any prefixed ID of the contract (`agt_...`, `call_...`, `usr_...`), as it appears inside a text. */
const ID_IN_TEXT = /\b[a-z]+_[A-Za-z0-9]+\b/g

const prefixOf = (id: string) => id.slice(0, id.indexOf('_'))

/**
 * The IDs of the target and of the model that name the same object, learnt from the answers (a created
 * object's ID on each side, an object found at the same place of a list): one to one, both ways.
 */
export class IdMap {
  private readonly toModelIds = new Map<string, string>()
  private readonly toTargetIds = new Map<string, string>()
  /** The pairs in the order they were learnt, so that a comparison that is taken back forgets its own. */
  private readonly learnt: string[] = []

  /** Records that `target` and `model` name the same object (the explorer made or sent both). */
  set(target: string, model: string): void {
    this.toModelIds.set(target, model)
    this.toTargetIds.set(model, target)
    this.learnt.push(target)
  }

  /** A point to come back to with `rollback`. */
  checkpoint(): number {
    return this.learnt.length
  }

  /** Forgets the pairs learnt since `checkpoint`. */
  rollback(checkpoint: number): void {
    for (const target of this.learnt.splice(checkpoint)) {
      const model = this.toModelIds.get(target)
      this.toModelIds.delete(target)
      if (model !== undefined) this.toTargetIds.delete(model)
    }
  }

  toModel(target: string): string | undefined {
    return this.toModelIds.get(target)
  }

  toTarget(model: string): string | undefined {
    return this.toTargetIds.get(model)
  }

  /**
   * Whether the two IDs found at the same place of two answers name the same object: undefined when they
   * do (the pair is learnt when neither side was known), else what is wrong, in words.
   */
  match(target: string, model: string): string | undefined {
    const known = this.toModelIds.get(target)
    if (known !== undefined)
      return known === model ? undefined : `${target} is another object than the model's ${model}`
    const back = this.toTargetIds.get(model)
    if (back !== undefined) return `${target} where the object is ${back}`
    if (prefixOf(target) !== prefixOf(model)) return `an ID of another kind (${prefixOf(target)}_...)`
    this.set(target, model)
    return undefined
  }

  /** A text with every known target ID replaced by the model's (a URL or message naming an object). */
  mapText(text: string): string {
    return text.replace(ID_IN_TEXT, (id) => this.toModelIds.get(id) ?? id)
  }
}
