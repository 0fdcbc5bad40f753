export { decryptToken, encryptToken, inboxSecretContext, pmTokenContext, TokenKeyError, webhookTokenContext } from './token-cipher';
