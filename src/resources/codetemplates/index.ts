import { defineModule } from '../../modules/module';
import { updateSentimentRoutes } from './update-sentiment';

/** `/v2/codetemplates...`: only the sentiment settings of a template (docs/resources/codetemplates.md). */
export const codeTemplatesModule = defineModule({ name: 'codetemplates', routes: updateSentimentRoutes });
