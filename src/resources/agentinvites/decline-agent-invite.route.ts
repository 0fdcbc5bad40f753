import { decisionRoute } from './decision';

/** `POST /v2/agentinvites/{id}/decline.json`: the owner turns the request down; the requester may ask again. */
export const declineAgentInviteRoute = decisionRoute('declined');
