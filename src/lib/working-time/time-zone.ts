/**
 * IANA time zone ids, checked with Intl alone (no date library): Intl knows exactly the zones
 * the runtime can compute with, so a zone it accepts is one the working-time code can use.
 */

// `Area/Location` names (and `UTC`, `EST5EDT`, `Etc/GMT+5`): no bare offsets such as `+05:30`,
// which newer runtimes accept as zones but are not IANA ids and have no daylight-saving rules.
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

let canonicalByLowerCase: Map<string, string> | undefined;

function listedSpellings(): Map<string, string> {
  if (!canonicalByLowerCase) {
    const supported =
      (Intl as { supportedValuesOf?: (key: 'timeZone') => string[] }).supportedValuesOf?.('timeZone') ?? [];
    canonicalByLowerCase = new Map(supported.map((zone) => [zone.toLowerCase(), zone]));
  }
  return canonicalByLowerCase;
}

/**
 * The zone's id with the usual spelling of its letters (`europe/dublin` -> `Europe/Dublin`), or
 * undefined when it is not a time zone the runtime knows. Aliases (`US/Eastern`) stay as given.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.length > 64 || !IANA_NAME.test(name)) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  return listedSpellings().get(name.toLowerCase()) ?? name;
}
