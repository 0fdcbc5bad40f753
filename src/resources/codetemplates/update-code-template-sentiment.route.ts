import { sentimentUpsertRoute } from './sentiment-upsert';

/** `PATCH /v2/codetemplates/{id}.json`: the template's sentiment, created by the first PATCH. */
export const updateCodeTemplateSentimentRoute = sentimentUpsertRoute('patch');
