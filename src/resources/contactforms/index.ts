import { defineModule } from '../../modules/module';
import { contactFormsResource } from './contactforms.resource';

/** `/v2/contactforms...`: the generic routes, bulk update and bulk delete included. */
export const contactFormsModule = defineModule({ name: 'contactforms', resources: [contactFormsResource] });
