import { defineModule } from '../../modules/module';
import { appFeaturesInstallationsResource } from './appfeaturesinstallations.resource';

/** `/v2/appfeaturesinstallations...`: the caller's installation's app features, list and get. */
export const appFeaturesInstallationsModule = defineModule({
  name: 'appfeaturesinstallations',
  resources: [appFeaturesInstallationsResource],
});
