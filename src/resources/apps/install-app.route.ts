import { install, stateChangeRoute } from './install';

/** `POST /v2/apps/{id}/install.json` */
export const installAppRoute = stateChangeRoute(
  'install',
  install,
  "Install an app in the caller's installation (idempotent)",
);
