import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { PLATFORM_BASE_PATH } from '../http/platform-address';
import { groupName } from './group-name';
import { guides } from './guides';
import { withExamples } from './examples';
import { registry } from './registry';

/**
 * The groups, in the order a reader looks for them (tickets and their thread first, then the
 * people, the ticket's vocabularies, chat and help docs, automation, integration, the account),
 * each with what it holds. Declarations name a group by its key (`BusinessHoursHolidays`); the
 * document names it in words (`groupName`).
 */
const TAGS: { name: string; description: string }[] = [
  { name: 'Tickets', description: "customers' requests and their threads, their history, time logs and search" },
  {
    name: 'Files',
    description: 'uploads in three steps, attached to thread entries, downloaded by those who see the ticket',
  },
  { name: 'Customers', description: 'the people served, their contacts and companies; merge' },
  { name: 'Companies', description: 'the organisations served; import, migrate, project-management sync' },
  { name: 'Inboxes', description: 'where tickets arrive, who works them, how replies leave' },
  { name: 'Users', description: 'teammates, their roles, and the caller (`/v2/me.json`)' },
  { name: 'Tags', description: 'labels on tickets' },
  { name: 'TicketStatuses', description: "the platform's six statuses and a team's own" },
  { name: 'TicketPriorities', description: 'how urgent a ticket is' },
  { name: 'TicketTypes', description: 'what kind of request a ticket is, optionally per inbox' },
  { name: 'TicketSources', description: 'the channel a ticket came through' },
  { name: 'CustomFields', description: "ticket fields of the team's own, optionally per inbox" },
  { name: 'CustomFieldOptions', description: 'the choices of a dropdown or checkboxes custom field' },
  { name: 'CannedResponses', description: 'reusable replies' },
  { name: 'Conversations', description: 'live chats and their realtime rooms' },
  { name: 'ConversationMessages', description: 'the messages of live chats' },
  { name: 'ContactForms', description: 'public entry points and the chat widget' },
  { name: 'Widget', description: 'the chat widget: script, demo page, public form settings' },
  {
    name: 'HelpDocs',
    description:
      'help-docs sites, categories and articles (drafts, published, private; full-text search), and the public help centre read without a credential',
  },
  {
    name: 'HappinessRatings',
    description: "satisfaction: rating options, the survey a solving reply's link opens, ratings and their summary",
  },
  {
    name: 'Triggers',
    description: 'automations over tickets: conditions and actions, on events, by the cron, or by hand',
  },
  { name: 'SLAs', description: 'service-level policies: which tickets, targets per priority, notifications' },
  { name: 'BusinessHours', description: 'when a team works, in one time zone' },
  { name: 'BusinessHoursSchedules', description: 'the working hours of each day' },
  { name: 'BusinessHoursHolidays', description: 'days off in business hours' },
  {
    name: 'Webhooks',
    description: 'endpoints events are pushed to, signed, retried, in order per ticket; their delivery logs',
  },
  { name: 'SpamLists', description: 'senders let through (whitelist) or refused (blacklist)' },
  { name: 'AgentInvites', description: "a collaborator's request for a seat, and the owner's decision" },
  { name: 'ApiKeys', description: "teammates' API keys: the secret shown once, revoked at once" },
  {
    name: 'OAuth',
    description:
      'OAuth 2.0 apps, and the app login flow: authorize page, token, revocation, userinfo, metadata (docs/oauth.md)',
  },
  { name: 'Apps', description: 'the app catalogue; install, uninstall, settings' },
  { name: 'AppFeatures', description: 'the features apps bring' },
  { name: 'AppFeaturesInstallations', description: 'the app features an installation has' },
  { name: 'PmConnection', description: 'the link to the project-management product' },
  { name: 'BackgroundJobs', description: 'work on the queue: progress and cancelling' },
  { name: 'Announcement', description: 'what the owner publishes, and what each role sees' },
  { name: 'Anomalies', description: 'unusual activity the scheduled scan noticed' },
  { name: 'AIUsage', description: 'AI add-on usage and effectiveness in the current billing period' },
  {
    name: 'AIDrafts',
    description: "reply drafts the AI writes from a ticket's thread and the help docs, inside the allowance",
  },
  { name: 'CodeTemplates', description: "a code template's sentiment settings" },
  { name: 'TimeZones', description: "the platform's time-zone ids" },
  { name: 'Service', description: 'the API reference and the health check' },
];

const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer', description: 'an API key or an OAuth 2.0 access token' },
  basic: { type: 'http', scheme: 'basic', description: 'the API key as user name, any password' },
  oauth2: {
    type: 'oauth2',
    description: 'an OAuth 2.0 access token, from the app login flow (docs/oauth.md); sent as `bearer`',
    flows: {
      authorizationCode: {
        authorizationUrl: '/oauth/authorize',
        tokenUrl: '/oauth/token',
        refreshUrl: '/oauth/token',
        scopes: { desk: 'all the teammate may do', 'desk:read': 'reads only (GET and HEAD)' },
      },
    },
  },
  clientSecretBasic: {
    type: 'http',
    scheme: 'basic',
    description: "an OAuth app's client_id and client_secret (RFC 6749 2.3.1)",
  },
};

let cached: Promise<unknown> | undefined;

/** The OpenAPI 3.1 document of every mounted route, made from their declarations once per isolate. */
export function openApiDocument(): Promise<unknown> {
  cached ??= withExamples(
    withServiceOnlyPaths(
      withSecuritySchemes(
        new OpenApiGeneratorV31(registry.definitions).generateDocument({
          openapi: '3.1.0',
          info: {
            title: 'Helpdesk API',
            version: '2.0.0',
            description:
              [
                'The helpdesk service API, version 2.',
                'Records are sent wrapped (`{"company": {...}}`) or bare; lists carry `meta.page` and `pagination`.',
                'Every answer carries `X-Request-Id` (the one the request sent, when sane).',
                'Errors share one body: `{"errors": [{"code", "source", "detail"}]}`.',
                'Every operation shows an example to send and, where it answers JSON, the answer it got when',
                'the tests sent it to a fresh installation. The guides below say how the parts fit together.',
              ].join(' ') + `\n\n${guides()}`,
          },
          servers: [
            { url: '/', description: 'this service' },
            {
              url: PLATFORM_BASE_PATH,
              description:
                "the platform's address layout: every `/v2/...` operation also at `/desk/api/v2/...`, the same answers",
            },
          ],
          tags: TAGS.map((tag) => ({ ...tag, name: groupName(tag.name) })),
          security: [{ bearer: [] }, { basic: [] }],
        }),
      ),
    ),
  );
  return cached;
}

/**
 * Operations outside `/v2/` (`/health`, `/oauth/...`, the widget's) are not under the platform's
 * base: each names the service's own server only (on the operation, so a path item holds methods only).
 */
function withServiceOnlyPaths<D extends { paths?: object }>(document: D): D {
  const own = (item: object) =>
    Object.fromEntries(
      Object.entries(item).map(([method, operation]) => [
        method,
        { ...(operation as object), servers: [{ url: '/' }] },
      ]),
    );
  return {
    ...document,
    paths: Object.fromEntries(
      Object.entries(document.paths ?? {}).map(([path, item]) => [
        path,
        path.startsWith('/v2/') ? item : own(item as object),
      ]),
    ),
  };
}

function withSecuritySchemes<D extends { components?: object }>(document: D): D {
  return { ...document, components: { ...document.components, securitySchemes: SECURITY_SCHEMES } };
}
