import { defineModule } from '../../modules/module';
import { aiDraftsResource } from './aidrafts.resource';
import { createTicketAiDraftRoute } from './create-ticket-ai-draft.route';
import { measureDraftSimilarity } from './measure-draft-similarity.subscriber';

/**
 * `/v2/aidrafts...` and `POST /v2/tickets/{id}/aidrafts.json`: reply drafts the AI writes for a
 * ticket from its thread and the matching help-doc articles, inside the AI allowance (docs/ai.md).
 */
export const aiDraftsModule = defineModule({
  name: 'aidrafts',
  resources: [aiDraftsResource],
  routes: [createTicketAiDraftRoute],
  subscribers: [measureDraftSimilarity],
});
