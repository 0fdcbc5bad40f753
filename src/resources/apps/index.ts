import { defineModule } from '../../modules/module';
import { appsResource } from './apps.resource';
import { installAppRoute } from './install-app.route';
import { uninstallAppRoute } from './uninstall-app.route';
import { updateAppSettingRoute } from './update-app-setting.route';

/** `/v2/apps...`: the catalogue (list, get), install and uninstall, and an installed app's settings. */
export const appsModule = defineModule({
  name: 'apps',
  resources: [appsResource],
  routes: [installAppRoute, uninstallAppRoute, updateAppSettingRoute],
});
