import { sentimentUpsertRoute } from './sentiment-upsert';

/** `PUT /v2/codetemplates/{id}.json`: PATCH's meaning, for the platform's clients that update with PUT. */
export const replaceCodeTemplateSentimentRoute = sentimentUpsertRoute('put');
