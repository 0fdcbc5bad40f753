import { defineModule } from '../../modules/module';
import { appsResource } from './apps.resource';
import { installRoute, uninstallRoute } from './install';
import { updateSettingRoute } from './update-setting';

/** `/v2/apps...`: the catalogue (list, get), install and uninstall, and an installed app's settings. */
export const appsModule = defineModule({
  name: 'apps',
  resources: [appsResource],
  routes: [installRoute, uninstallRoute, updateSettingRoute],
});
