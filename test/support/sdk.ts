/**
 * What the platform's official client (Teamwork/desksdkgo) sends: its headers, and the
 * `included` of a response type it marshals back on create and update (every list null).
 */
export const SDK_INCLUDED: Record<string, null> = Object.fromEntries(
  [
    'companies',
    'contacts',
    'customers',
    'domains',
    'inboxes',
    'messages',
    'slacustomers',
    'slacompanies',
    'slainboxes',
    'slanotifications',
    'slaticketpriorities',
    'slatags',
    'tags',
    'ticketactivities',
    'ticketsources',
    'ticketstatuses',
    'tickettypes',
    'timelogs',
    'users',
  ].map((name) => [name, null]),
);

export const SDK_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
