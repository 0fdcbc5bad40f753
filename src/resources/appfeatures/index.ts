import { defineModule } from '../../modules/module';
import { appFeaturesResource } from './appfeatures.resource';

/** `/v2/appfeatures...`: the catalogue's features, list and get. */
export const appFeaturesModule = defineModule({ name: 'appfeatures', resources: [appFeaturesResource] });
