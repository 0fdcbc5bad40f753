/**
 * A file's name as an entry of a zip: one name, never a path. Slashes, backslashes and control
 * characters become `_`, runs of dots one dot (so no `..`), and a name left empty or only dots is
 * `file-<id>`: whatever a stored name holds, unzipping writes one file inside the folder chosen.
 */
function entryName(id: number, name: string): string {
  const flat = name
    .replace(/[/\\\u0000-\u001f\u007f]/g, '_')
    .replace(/\.{2,}/g, '.')
    .trim();
  return flat === '' || flat === '.' ? `file-${id}` : flat;
}

/**
 * The names of a zip's entries, in order: each file's own name made safe (`entryName`), a name
 * met again (ignoring case, as the file systems of Windows and macOS do) numbered before its
 * extension as browsers number downloads: `a.txt`, `a (2).txt`, `a (3).txt`.
 */
export function zipEntryNames(files: readonly { id: number; name: string }[]): string[] {
  const taken = new Set<string>();
  return files.map(({ id, name }) => {
    const safe = entryName(id, name);
    const dot = safe.lastIndexOf('.');
    const [stem, extension] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ''];
    let candidate = safe;
    for (let copy = 2; taken.has(candidate.toLowerCase()); copy++) candidate = `${stem} (${copy})${extension}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  });
}
