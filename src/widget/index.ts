import { defineModule } from '../modules/module';
import { conversationStartCors, formSettingsCors } from './cors';
import { getContactFormSettingsRoute } from './get-contact-form-settings.route';
import { getWidgetDemoRoute } from './get-widget-demo.route';
import { getWidgetScriptRoute } from './get-widget-script.route';

/**
 * The chat widget (docs/widget.md): its script, a demo page, the public settings of a contact
 * form, and the CORS of the two routes the widget calls from a customer's site (the start of a
 * conversation is the conversations' own route).
 */
export const widgetModule = defineModule({
  name: 'widget',
  routes: [getWidgetScriptRoute, getWidgetDemoRoute, getContactFormSettingsRoute],
  middleware: [
    { path: '/widget/forms/*', handler: formSettingsCors() },
    { path: '/v2/conversations.json', handler: conversationStartCors() },
  ],
});
