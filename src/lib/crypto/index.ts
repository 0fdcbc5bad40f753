export {
  decryptToken,
  encryptToken,
  inboxSecretContext,
  legacyInboxSecretContext,
  pmTokenContext,
  TokenKeyError,
  webhookTokenContext,
} from './token-cipher';
export { tokenKey, type HmacUse } from './keys';
