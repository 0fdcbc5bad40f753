-- The app catalogue, shipped as data: every installation reads the same apps, their settings
-- and their features. Idempotent: apps are keyed by slug, settings by (app, key), features by
-- (app, name), so running it again, or after an operator added rows by hand, changes nothing.
-- Rows go in in the order listed (`position`), so ids keep that order, which reads use.
INSERT INTO "apps" ("slug", "name", "description", "developer", "icon_url") VALUES
	('slack-notifications', 'Slack notifications', 'Posts new, assigned and urgent tickets to a Slack channel so the team sees them where it already talks.', 'Helpdesk', 'https://cdn.helpdesk.test/apps/slack.svg'),
	('jira', 'Jira', 'Creates Jira issues from tickets and shows the linked issues, with their status, beside the conversation.', 'Helpdesk', 'https://cdn.helpdesk.test/apps/jira.svg'),
	('csat-survey', 'CSAT survey', 'Asks customers to rate the support they received once their ticket is solved, and reports the scores.', 'Helpdesk', 'https://cdn.helpdesk.test/apps/csat.svg'),
	('ai-reply-assistant', 'AI reply assistant', 'Drafts replies from the conversation and the knowledge base, summarises long threads and rewrites a reply in another tone.', 'Helpdesk', 'https://cdn.helpdesk.test/apps/ai-assistant.svg'),
	('shopify-orders', 'Shopify orders', 'Shows the customer''s recent Shopify orders, with their status and tracking, beside the ticket.', 'Helpdesk', 'https://cdn.helpdesk.test/apps/shopify.svg')
ON CONFLICT ("slug") DO NOTHING;
--> statement-breakpoint
INSERT INTO "app_setting_definitions" ("app_id", "key", "name", "setting_type", "options", "default_value", "required")
SELECT "apps"."id", s."key", s."name", s."setting_type", s."options"::jsonb, s."default_value"::jsonb, s."required"
FROM (VALUES
	(1, 'slack-notifications', 'webhookUrl', 'Incoming webhook URL', 'secret', NULL, NULL, true),
	(2, 'slack-notifications', 'channel', 'Channel', 'string', NULL, '"#support"', true),
	(3, 'slack-notifications', 'notifyOn', 'Notify on', 'select', '["all", "new_tickets", "urgent_only"]', '"new_tickets"', true),
	(4, 'slack-notifications', 'mentionAssignee', 'Mention the assignee', 'boolean', NULL, 'true', false),
	(5, 'jira', 'siteUrl', 'Jira site URL', 'string', NULL, NULL, true),
	(6, 'jira', 'apiToken', 'API token', 'secret', NULL, NULL, true),
	(7, 'jira', 'projectKey', 'Default project key', 'string', NULL, NULL, false),
	(8, 'jira', 'syncComments', 'Copy public replies to the issue', 'boolean', NULL, 'false', false),
	(9, 'csat-survey', 'sendDelayHours', 'Hours to wait after a ticket is solved', 'number', NULL, '24', true),
	(10, 'csat-survey', 'scale', 'Rating scale', 'select', '["1-5", "thumbs", "emoji"]', '"1-5"', true),
	(11, 'csat-survey', 'question', 'Question', 'string', NULL, '"How would you rate the support you received?"', false),
	(12, 'csat-survey', 'signingSecret', 'Secret that signs score webhooks', 'secret', NULL, NULL, false),
	(13, 'ai-reply-assistant', 'tone', 'Tone', 'select', '["friendly", "formal", "concise"]', '"friendly"', true),
	(14, 'ai-reply-assistant', 'maxSuggestions', 'Drafts offered per reply', 'number', NULL, '3', false),
	(15, 'ai-reply-assistant', 'autoDraft', 'Draft a reply when a ticket is opened', 'boolean', NULL, 'false', false),
	(16, 'ai-reply-assistant', 'instructions', 'Extra instructions', 'string', NULL, NULL, false),
	(17, 'shopify-orders', 'storeDomain', 'Store domain', 'string', NULL, NULL, true),
	(18, 'shopify-orders', 'accessToken', 'Admin API access token', 'secret', NULL, NULL, true),
	(19, 'shopify-orders', 'ordersShown', 'Orders shown', 'number', NULL, '5', false)
) AS s ("position", "slug", "key", "name", "setting_type", "options", "default_value", "required")
JOIN "apps" ON "apps"."slug" = s."slug"
ORDER BY s."position"
ON CONFLICT ("app_id", "key") DO NOTHING;
--> statement-breakpoint
INSERT INTO "app_features" ("app_id", "name", "description", "default_value")
SELECT "apps"."id", f."name", f."description", f."default_value"
FROM (VALUES
	(1, 'slack-notifications', 'Ticket notifications', 'A message in the channel for every ticket the setting selects.', 'enabled'),
	(2, 'slack-notifications', 'Reply from Slack', 'Reply to a ticket from its Slack thread.', 'disabled'),
	(3, 'jira', 'Create issue from ticket', 'A ticket action that opens a Jira issue with the conversation attached.', 'enabled'),
	(4, 'jira', 'Linked issues sidebar', 'The linked issues and their status beside the conversation.', 'enabled'),
	(5, 'csat-survey', 'Survey after solve', 'Sends the survey when a ticket is solved.', 'enabled'),
	(6, 'csat-survey', 'CSAT report', 'Scores by agent, inbox and week.', 'enabled'),
	(7, 'ai-reply-assistant', 'Reply drafts', 'Drafts a reply in the composer.', 'enabled'),
	(8, 'ai-reply-assistant', 'Conversation summary', 'A summary at the top of long conversations.', 'enabled'),
	(9, 'ai-reply-assistant', 'Tone rewrite', 'Rewrites a reply in the chosen tone.', 'disabled'),
	(10, 'shopify-orders', 'Customer orders sidebar', 'The customer''s recent orders beside the ticket.', 'enabled')
) AS f ("position", "slug", "name", "description", "default_value")
JOIN "apps" ON "apps"."slug" = f."slug"
WHERE NOT EXISTS (SELECT 1 FROM "app_features" existing WHERE existing."app_id" = "apps"."id" AND existing."name" = f."name")
ORDER BY f."position";
