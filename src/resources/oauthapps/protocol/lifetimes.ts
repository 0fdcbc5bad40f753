/** An authorization code works once, within 10 minutes (RFC 6749 4.1.2 advises 10 at most; the platform allows 15). */
export const CODE_SECONDS = 10 * 60;
/** An access token lives an hour; the refresh token gets the next one. */
export const ACCESS_TOKEN_SECONDS = 60 * 60;
/** A refresh token not used for 60 days ends, and with it the app's access, until the teammate consents again. */
export const REFRESH_TOKEN_SECONDS = 60 * 24 * 60 * 60;
/** The authorize page's sign-in cookie lasts a week. */
export const SIGNIN_SECONDS = 7 * 24 * 60 * 60;
