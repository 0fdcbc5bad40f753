export { decryptToken, encryptToken, inboxSecretContext, pmTokenContext, TokenKeyError } from './token-cipher';
