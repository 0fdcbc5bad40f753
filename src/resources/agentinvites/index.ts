import { defineModule } from '../../modules/module';
import { acceptAgentInviteRoute } from './accept-agent-invite.route';
import { agentInvitesResource } from './agentinvites.resource';
import { declineAgentInviteRoute } from './decline-agent-invite.route';

/** `/v2/agentinvites...`: list, get and create, and the owner's accept and decline. */
export const agentInvitesModule = defineModule({
  name: 'agentinvites',
  resources: [agentInvitesResource],
  routes: [acceptAgentInviteRoute, declineAgentInviteRoute],
});
