export { decryptToken, encryptToken, pmTokenContext, TokenKeyError } from './token-cipher';
