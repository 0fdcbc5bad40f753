/**
 * A contact form's public token: 24 random bytes as base64url (32 characters). The chat widget
 * and the form's embed code address the form by it, so it must not be guessable.
 */
export function newFormToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
