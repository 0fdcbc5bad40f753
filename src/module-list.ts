import { deadLettersModule } from './deadletters';
import { healthModule } from './health';
import { idempotencyModule } from './idempotency';
import { openApiModule } from './openapi';
import { rateLimitModule } from './ratelimit';
import { agentInvitesModule } from './resources/agentinvites';
import { aiModule } from './resources/ai';
import { aiDraftsModule } from './resources/aidrafts';
import { announcementModule } from './resources/announcement';
import { announcementsModule } from './resources/announcements';
import { apiKeysModule } from './resources/apikeys';
import { anomaliesModule } from './resources/anomalies';
import { appFeaturesModule } from './resources/appfeatures';
import { appFeaturesInstallationsModule } from './resources/appfeaturesinstallations';
import { appsModule } from './resources/apps';
import { backgroundJobsModule } from './resources/backgroundjobs';
import { businessHoursModule } from './resources/businesshours';
import { businessHoursHolidaysModule } from './resources/businesshoursholidays';
import { businessHoursSchedulesModule } from './resources/businesshoursschedules';
import { cannedResponsesModule } from './resources/cannedresponses';
import { codeTemplatesModule } from './resources/codetemplates';
import { companiesModule } from './resources/companies';
import { contactFormsModule } from './resources/contactforms';
import { contactsModule } from './resources/contacts';
import { conversationMessagesModule } from './resources/conversationmessages';
import { conversationsModule } from './resources/conversations';
import { customersModule } from './resources/customers';
import { filesModule } from './resources/files';
import { helpDocsModule } from './resources/helpdocs';
import { inboxesModule } from './resources/inboxes';
import { mailModule } from './resources/mail';
import { mailDomainsModule } from './resources/maildomains';
import { oauthAppsModule } from './resources/oauthapps';
import { pmConnectionModule } from './resources/pmconnection';
import { roomsModule } from './resources/rooms';
import { spamListsModule } from './resources/spamlists';
import { tagsModule } from './resources/tags';
import { ticketPrioritiesModule } from './resources/ticketpriorities';
import { ticketSourcesModule } from './resources/ticketsources';
import { ticketStatusesModule } from './resources/ticketstatuses';
import { ticketTypesModule } from './resources/tickettypes';
import { customFieldsModule } from './resources/customfields';
import { slasModule } from './resources/slas';
import { happinessModule } from './resources/happiness';
import { triggersModule } from './resources/triggers';
import { webhookEndpointsModule } from './resources/webhookendpoints';
import { ticketsModule } from './resources/tickets';
import { timeLogsModule } from './resources/timelogs';
import { timeZonesModule } from './resources/timezones';
import { usersModule } from './resources/users';
import { widgetModule } from './widget';
import type { Module } from './modules/module';

/**
 * Every module of the service, once: the app mounts their routes, the queue consumer their
 * consumers and subscribers, the cron their tasks. Adding a group is adding its folder and a line
 * here; the order does not matter.
 */
export const modules: readonly Module[] = [
  agentInvitesModule,
  aiModule,
  aiDraftsModule,
  announcementModule,
  announcementsModule,
  apiKeysModule,
  anomaliesModule,
  appFeaturesModule,
  appFeaturesInstallationsModule,
  appsModule,
  backgroundJobsModule,
  businessHoursModule,
  businessHoursHolidaysModule,
  businessHoursSchedulesModule,
  cannedResponsesModule,
  codeTemplatesModule,
  companiesModule,
  contactFormsModule,
  contactsModule,
  conversationMessagesModule,
  conversationsModule,
  customersModule,
  filesModule,
  helpDocsModule,
  inboxesModule,
  mailDomainsModule,
  mailModule,
  oauthAppsModule,
  pmConnectionModule,
  roomsModule,
  spamListsModule,
  tagsModule,
  ticketPrioritiesModule,
  ticketSourcesModule,
  ticketStatusesModule,
  ticketTypesModule,
  customFieldsModule,
  slasModule,
  happinessModule,
  triggersModule,
  ticketsModule,
  webhookEndpointsModule,
  timeLogsModule,
  timeZonesModule,
  usersModule,
  widgetModule,
  openApiModule,
  healthModule,
  deadLettersModule,
  idempotencyModule,
  rateLimitModule,
];
