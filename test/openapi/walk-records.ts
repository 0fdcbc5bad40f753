// The records the walk's examples name. An id an example writes is a name, not the record: a
// reference without one (a path's `{id}` with no example) is the record of its type the walk made
// last; each id an example does write (`{"customer": {"id": 2}}`) stays one record of its own for
// the whole walk, a different one for each id, so that a merge's two tickets are two: the record
// of that id in a catalogue every installation shares (the catalogue's app 3), else the last one
// made that no other id names, else one listed, else one made anew.

/** Asks the service: a list's records, or a new record made with the type's create example. */
export interface RecordSource {
  /** the records its list answers: the list of `type`, or the one at `listPath` (a child list) */
  list(type: string, listPath?: string): Promise<number[]>;
  make(type: string): Promise<number | undefined>;
  /** a type every installation shares: an id an example names is that record */
  isCatalogue(type: string): boolean;
}

export class WalkRecords {
  private readonly made = new Map<string, number[]>();
  private readonly named = new Map<string, Map<string | number, number>>();
  private readonly last = new Map<string, Record<string, unknown>>();

  constructor(private readonly source: RecordSource) {}

  /** A record the walk made, the last of its type from now on; `record` as it was answered, when it was. */
  remember(type: string, id: number, record?: Record<string, unknown>): void {
    this.made.set(type, [...(this.made.get(type) ?? []).filter((made) => made !== id), id]);
    if (record) this.last.set(type, record);
  }

  /** Every record of `type` the walk made, the last last. */
  allMade(type: string): number[] {
    return [...(this.made.get(type) ?? [])];
  }

  /** The last record of `type` the walk made, as it was answered (its `token`, say). */
  lastMade(type: string): Record<string, unknown> | undefined {
    return this.last.get(type);
  }

  knows(type: string): boolean {
    return (this.made.get(type)?.length ?? 0) > 0;
  }

  /** The record a reference of `type` names: `written` is the id the example wrote, if any. */
  async idOf(type: string, written?: string | number, listPath?: string): Promise<number | undefined> {
    const made = this.made.get(type) ?? [];
    if (written === undefined)
      return made.at(-1) ?? (await this.source.list(type, listPath))[0] ?? (await this.source.make(type));
    const names = this.named.get(type) ?? new Map<string | number, number>();
    this.named.set(type, names);
    const known = names.get(written);
    if (known !== undefined) return known;
    const taken = new Set(names.values());
    const free = (ids: number[]) => ids.find((id) => !taken.has(id));
    const listed = await this.source.list(type, listPath);
    // an id the installation has is that record (the catalogue's app 3), unless another name has it
    const itself =
      this.source.isCatalogue(type) && typeof written === 'number' && listed.includes(written) && !taken.has(written)
        ? written
        : undefined;
    const id = itself ?? free([...made].reverse()) ?? free(listed) ?? (await this.source.make(type));
    if (id !== undefined) names.set(written, id);
    return id;
  }
}
