import { defineModule } from '../../modules/module';
import { tagsResource } from './tags.resource';

/** `/v2/tags...`: the generic routes, bulk update and bulk delete by filter included. */
export const tagsModule = defineModule({ name: 'tags', resources: [tagsResource] });
