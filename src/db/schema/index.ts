export * from './identity';
export * from './customers';
export * from './inboxes';
export * from './companies';
