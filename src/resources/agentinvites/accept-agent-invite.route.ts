import { decisionRoute } from './decision';

/** `POST /v2/agentinvites/{id}/accept.json`: the owner gives the requester a seat (collaborator becomes agent). */
export const acceptAgentInviteRoute = decisionRoute('accepted');
