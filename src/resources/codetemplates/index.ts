import { defineModule } from '../../modules/module';
import { replaceCodeTemplateSentimentRoute } from './replace-code-template-sentiment.route';
import { updateCodeTemplateSentimentRoute } from './update-code-template-sentiment.route';

/** `/v2/codetemplates...`: only the sentiment settings of a template (docs/resources/codetemplates.md). */
export const codeTemplatesModule = defineModule({
  name: 'codetemplates',
  routes: [updateCodeTemplateSentimentRoute, replaceCodeTemplateSentimentRoute],
});
