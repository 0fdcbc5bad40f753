import { Hono } from 'hono';
import type { AppEnv } from './app-env';
import { authenticate } from './auth/authenticate';
import { withDatabase } from './db/middleware';
import { handleError, handleNotFound } from './http/error-handler';
import { openApiRoutes } from './openapi/routes';
import { companiesRoutes } from './resources/companies';
import { pmConnectionRoutes } from './resources/pmconnection';
import { agentInvitesRoutes } from './resources/agentinvites';
import { announcementRoutes } from './resources/announcement';
import { anomaliesRoutes } from './resources/anomalies';
import { appsRoutes } from './resources/apps';
import { appFeaturesRoutes } from './resources/appfeatures';
import { appFeaturesInstallationsRoutes } from './resources/appfeaturesinstallations';
import { businessHoursRoutes } from './resources/businesshours';
import { businessHoursHolidaysRoutes } from './resources/businesshoursholidays';
import { businessHoursSchedulesRoutes } from './resources/businesshoursschedules';
import { cannedResponsesRoutes } from './resources/cannedresponses';
import { contactFormsRoutes } from './resources/contactforms';
import { codeTemplatesRoutes } from './resources/codetemplates';
import { backgroundJobsRoutes } from './resources/backgroundjobs';
import { aiRoutes } from './resources/ai';
import { conversationMessagesRoutes, publicConversationMessagesRoutes } from './resources/conversationmessages';
import { conversationsRoutes, publicConversationsRoutes } from './resources/conversations';
import { roomsRoutes } from './resources/rooms';
import { widgetRoutes } from './widget';

/**
 * The whole HTTP surface. Public routes come first; everything added after `authenticate`
 * needs a credential.
 */
export function createApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(handleError);
  app.notFound(handleNotFound);

  app.get('/health', (c) => c.json({ status: 'ok' }));
  openApiRoutes(app);
  widgetRoutes(app);

  app.use('/v2/*', withDatabase);
  // Public, or authenticated by what they carry: a conversation token, a contact form token, a signature.
  publicConversationsRoutes(app);
  publicConversationMessagesRoutes(app);
  roomsRoutes(app);

  app.use('/v2/*', authenticate);
  companiesRoutes(app);
  pmConnectionRoutes(app);
  agentInvitesRoutes(app);
  announcementRoutes(app);
  anomaliesRoutes(app);
  appsRoutes(app);
  appFeaturesRoutes(app);
  appFeaturesInstallationsRoutes(app);
  businessHoursRoutes(app);
  businessHoursHolidaysRoutes(app);
  businessHoursSchedulesRoutes(app);
  cannedResponsesRoutes(app);
  contactFormsRoutes(app);
  codeTemplatesRoutes(app);
  backgroundJobsRoutes(app);
  aiRoutes(app);
  conversationsRoutes(app);
  conversationMessagesRoutes(app);
  return app;
}
