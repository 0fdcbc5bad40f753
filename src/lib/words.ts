// A declaration's PascalCase title (`BusinessHoursHoliday`, `ApiKey`) as a reader says it, for the
// reference's summaries and groups.

/** Parts written as their owners write them, not as PascalCase splits them. */
const SPELLED: Record<string, string> = {
  api: 'API',
  ai: 'AI',
  sla: 'SLA',
  slas: 'SLAs',
  oauth: 'OAuth',
  pm: 'PM',
  id: 'ID',
};

/** Words that start with a vowel letter but not a vowel sound, and the reverse (said letter by letter). */
const A_BEFORE = /^(user|usage|uni|one)/i;
const AN_BEFORE = /^(SLA|API|AI|FAQ|HTML|MIME|SMS)/;

/** `BusinessHoursHoliday` → `business hours holiday`; `ApiKey` → `API key`; `OAuthApp` → `OAuth app`. */
export function inWords(pascal: string): string {
  const parts = pascal
    .replace(/OAuth/g, 'Oauth ')
    .replace(/AI(?=[A-Z][a-z])/g, 'Ai ')
    .match(/[A-Z]+s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [pascal];
  return parts.map((part) => SPELLED[part.toLowerCase()] ?? part.toLowerCase()).join(' ');
}

/** The same, its first letter a capital: a group's name (`Business hours holidays`). */
export function titleInWords(pascal: string): string {
  const words = inWords(pascal);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `a` or `an` before words as they are said: an agent invite, a user, an SLA. */
export function withArticle(words: string): string {
  const an = AN_BEFORE.test(words) || (/^[aeiou]/i.test(words) && !A_BEFORE.test(words));
  return `${an ? 'an' : 'a'} ${words}`;
}
