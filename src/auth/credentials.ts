/**
 * The secret a request presents: `Bearer <key or token>`, or Basic with the key as user name
 * (any password, as the platform's other interface takes it).
 */
export function presentedSecret(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const parts = header.trim().split(/\s+/);
  if (parts.length !== 2) return undefined;
  const [scheme, value] = parts as [string, string];
  if (scheme.toLowerCase() === 'bearer') return value;
  if (scheme.toLowerCase() !== 'basic') return undefined;
  let decoded: string;
  try {
    decoded = atob(value);
  } catch {
    return undefined;
  }
  const user = decoded.split(':', 1)[0];
  return user || undefined;
}
