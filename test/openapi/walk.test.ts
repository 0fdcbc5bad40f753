// The reference's examples, every one sent (issue 34: "a test sends every operation's examples, in
// a sensible order against a fresh installation, and expects the documented success"). The walk
// reads only the document: each operation's request example (its declaration's, see
// src/openapi/examples.ts), its parameters' examples, and the `type` its body's references name.
// The ids an example writes are names for records of this installation (`walk-records.ts`), so
// examples read as a reader writes them and still meet a fresh installation.
//
// `npm run examples` runs this file with EXAMPLES_RECORD=1: it writes what every operation
// answered into src/openapi/example-answers.json, the document's answer examples. Otherwise the
// walk checks that each answer still has the recorded one's properties.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { DEV_OPERATOR_TOKEN } from '../../scripts/worker-vars';
import type { UserRole } from '../../src/db/schema';
import recorded from '../../src/openapi/example-answers.json';
import type { RecordedAnswer } from '../../src/openapi/examples';
import WebSocket from 'ws';
import { api, type ApiResponse } from '../support/api';
import { checkAnswer } from '../support/contract';
import { signatureHeaders } from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { sameShape, trimmedAnswer } from './walk-answers';
import {
  BEFORE_SENDING,
  MADE_ELSEWHERE,
  mailedEntry,
  once,
  proofToken,
  startWorld,
  swapped,
  type WalkWorld,
} from './walk-fixtures';
import { isCreate, typeUnder, walkOrder, type WalkOperation } from './walk-order';
import { WalkRecords } from './walk-records';
import { resolvedBody, typeNamedIn, type TypeNamed } from './walk-references';

const RECORD = process.env.EXAMPLES_RECORD === '1';
const ANSWERS_FILE = path.resolve(import.meta.dirname, '../../src/openapi/example-answers.json');

/** Operations the owner may not call, and who calls them instead (the operator's by their path). */
const CALLERS: Record<string, Exclude<UserRole, 'owner'>> = {
  createAgentInvite: 'collaborator',
};

let doc: any;
let site: SeededInstallation;
let typeNamed: TypeNamed;
let records: WalkRecords;
let world: WalkWorld;

/** The first array an answer holds: a list's records. */
const listed = (body: unknown) =>
  (Object.values(body as Record<string, unknown>).find(Array.isArray) ?? []) as Array<{ id?: unknown }>;

beforeAll(async () => {
  doc = (await api('/v2/openapi.json')).body;
  typeNamed = typeNamedIn(doc);
  site = await newInstallation('walk');
  // the reader has the AI add-on: its drafts are examples too
  await rows('UPDATE installations SET ai_allowance = 1000 WHERE id = $1', [site.id]);
  world = await startWorld();
  records = new WalkRecords({
    isCatalogue: (type) => CATALOGUES.has(type),
    async list(type, listPath) {
      // the operator's list holds every installation's: the walk names only those it made
      if (type === 'deadletters') return [];
      const path =
        listPath ??
        Object.keys(doc.paths).find((p) => p.endsWith(`/${type}.json`) && !p.includes('{') && doc.paths[p].get);
      if (!path) return [];
      const answer = await api(path, { key: keyFor(path) });
      return answer.status === 200
        ? listed(answer.body)
            .map((record) => record.id)
            .filter((id): id is number => typeof id === 'number')
        : [];
    },
    async make(type) {
      const create = ordered().find((operation) => isCreate(operation) && typeUnder(operation.path) === type);
      if (!create) {
        const id = await MADE_ELSEWHERE[type]?.(site, records);
        if (id !== undefined) records.remember(type, id);
        return id;
      }
      made += 1;
      const answer = await send(create, made);
      return answer.status === 201 ? remember(create, answer.body) : undefined;
    },
  });
});

afterAll(async () => {
  await world?.close();
});

/** Records made again with a create's example, so far: each one's unique properties get this number. */
let made = 0;

/** Properties that are unique among an installation's records: a record made again has them numbered. */
const UNIQUE = ['name', 'email', 'subdomain', 'term', 'title', 'agentLabel', 'localPart'];

/** A create's example as it makes another record: its unique properties numbered (`Billing 2`, `2.ada@...`). */
function numbered(value: unknown, n: number): unknown {
  if (Array.isArray(value)) return value;
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [
      name,
      typeof item === 'string' && UNIQUE.includes(name)
        ? name === 'email'
          ? `${n}.${item}`
          : ['subdomain', 'localPart'].includes(name)
            ? `${item}-${n}`
            : `${item} ${n}`
        : numbered(item, n),
    ]),
  );
}

/** Types every installation shares, whose ids an example may name as they are (the catalogue's app 3, the platform's status 5). */
const CATALOGUES = new Set(['apps', 'appfeatures', 'timezones', 'ticketstatuses']);

/** Operations that must follow another of the same phase: the first's record is the second's precondition. */
const AFTER: Record<string, string> = {
  // a request for a seat is declined, then asked again and accepted
  acceptAgentInvite: 'declineAgentInvite',
  // a deleted ticket is restored
  restoreTicket: 'deleteTicket',
  // the project-management product is connected before anything asks it
  setPmConnection: 'createTicket',
  // an installed app's settings and features
  updateAppSetting: 'installApp',
  getAppFeaturesInstallation: 'installApp',
  // a file's bytes, then its confirmation, before a reply attaches it
  uploadFile: 'createFileRef',
  confirmFile: 'uploadFile',
  // the import's job
  getBackgroundJob: 'importCompanies',
  // the customer's rating, then read
  getHappinessRating: 'answerHappinessSurvey',
};

/** The walk's order with each of AFTER's operations moved behind the one it follows. */
function ordered(): WalkOperation[] {
  const operations = walkOrder(doc);
  for (const [operationId, follows] of Object.entries(AFTER)) {
    const from = operations.findIndex((operation) => operation.operation.operationId === operationId);
    if (from === -1) continue;
    const [moved] = operations.splice(from, 1);
    operations.splice(operations.findIndex((operation) => operation.operation.operationId === follows) + 1, 0, moved!);
  }
  return operations;
}

/**
 * The record type of a path's integer parameter where the segment before it does not name it
 * (`/v2/backgroundjobs/{type}/{action}/{id}.json`); null: a code, sent as its example writes it.
 */
const PARAM_TYPES: Record<string, string | null> = {
  'cancelBackgroundJob.type': null,
  'cancelBackgroundJob.action': null,
  'cancelBackgroundJob.id': 'backgroundjobs',
};

/** The path parameters that are a property of a record the walk made: its type and the property. */
const PARAM_PROPERTIES: Record<string, [string, string]> = {
  'getContactFormSettings.formToken': ['contactforms', 'token'],
  'getConversationHistory.token': ['conversations', 'token'],
  'joinConversationRoom.token': ['conversations', 'token'],
};

/** The token of the survey link a solving reply sent the customer, as the ticket's survey says it. */
async function surveyToken(): Promise<string | undefined> {
  for (const ticket of records.allMade('tickets')) {
    const survey = await api(`/v2/tickets/${ticket}/happinesssurvey.json`, { key: keyFor('/v2/') });
    const url: string | undefined = survey.body?.happinesssurvey?.url;
    if (url) return /\/happiness\/([^/.]+)/.exec(url)?.[1];
  }
  return undefined;
}

const customerProof = once(() => proofToken(records, 'grace@customer.example'));
const mailed = once(() => mailedEntry(site, keyFor('/v2/')));

/** Path parameters the walk reads from the service: what a link it mailed holds, the ticket a mail made. */
const PARAM_VALUES: Record<string, () => Promise<string | number | undefined>> = {
  'getHappinessSurvey.token': surveyToken,
  'answerHappinessSurvey.token': surveyToken,
  'contactEmailProofPage.token': customerProof,
  'confirmContactEmail.token': customerProof,
  'downloadOriginalMessage.id': async () => (await mailed())?.ticket,
  'downloadOriginalMessage.messageId': async () => (await mailed())?.entry,
};

/** The path parameters each operation was last sent with, by operationId: recorded with its answer. */
const sentParams = new Map<string, Record<string, string | number>>();

/** Whether the document lists the records a path parameter names: `/v2/webhookendpoints/{id}/deliveries.json` for `{deliveryId}`. */
function listOf(template: string, marker: string): boolean {
  return Boolean(doc.paths[`${template.slice(0, template.indexOf(marker) - 1)}.json`]?.get);
}

/** The path with every parameter filled: an integer one with the record its collection names, another with its example. */
async function filledPath(operation: WalkOperation): Promise<string> {
  let filled = operation.path;
  const sent: Record<string, string | number> = {};
  sentParams.set(operation.operation.operationId, sent);
  for (const parameter of (operation.operation.parameters ?? []).filter((p: any) => p.in === 'path')) {
    const marker = `{${parameter.name}}`;
    const before = filled.slice(0, filled.indexOf(marker) - 1);
    const integer = JSON.stringify(parameter.schema ?? {}).includes('integer');
    const named = `${operation.operation.operationId}.${parameter.name}`;
    const type = named in PARAM_TYPES ? PARAM_TYPES[named] : before.split('/').at(-1)!;
    const property = PARAM_PROPERTIES[named];
    const value = PARAM_VALUES[named]
      ? await PARAM_VALUES[named]()
      : property
        ? records.lastMade(property[0])?.[property[1]]
        : integer && type
          ? ((await records.idOf(
              type,
              parameter.example,
              listOf(operation.path, marker) ? `${before}.json` : undefined,
            )) ?? parameter.example)
          : (parameter.example ?? parameter.schema?.example);
    if (value === undefined) throw new Error(`nothing to put for ${marker}`);
    sent[parameter.name] = value as string | number;
    filled = filled.replace(marker, encodeURIComponent(String(value)));
  }
  return filled;
}

/**
 * The query as the operation's example gives it, and a required parameter as its own example does
 * (a bulk delete's `filter`); the ids of a JSON one named after a type (a list's `customfields`)
 * taken as records of it. A list is sent without the optional parameters' examples, so its answer
 * shows records (test/openapi/examples.test.ts sends those examples).
 */
async function exampleQuery(operation: WalkOperation): Promise<Record<string, string>> {
  const query: Record<string, string> = {};
  for (const parameter of operation.operation.parameters ?? []) {
    const example = parameter.example ?? (parameter.required ? parameter.schema?.example : undefined);
    if (parameter.in !== 'query' || example === undefined) continue;
    let text = typeof example === 'string' ? example : JSON.stringify(example);
    // the record a deleted one's users move to is of the path's type
    if (parameter.name === 'replaceWith') text = String(await records.idOf(typeUnder(operation.path), text));
    const type = typeNamed(parameter.name);
    if (type && text.startsWith('[')) {
      text = JSON.stringify(
        await Promise.all(
          JSON.parse(text).map(async (item: { id: number }) => ({ ...item, id: await records.idOf(type, item.id) })),
        ),
      );
    }
    query[parameter.name] = text;
  }
  return query;
}

/** The credential an operation is sent with: the operator's token on their paths, else the key of its caller. */
function keyFor(path: string, operationId?: string): string {
  if (path.startsWith('/operator/')) return DEV_OPERATOR_TOKEN;
  return site.users[(operationId && CALLERS[operationId]) || 'owner'].apiKey;
}

/** The form of an operation's body that has an example, and the example. */
function bodyExample(operation: WalkOperation): { form: string; example: unknown; schema: any } | undefined {
  const content: Record<string, { example?: unknown; schema?: any }> = operation.operation.requestBody?.content ?? {};
  const [form, media] = Object.entries(content).find(([, given]) => given.example !== undefined) ?? [];
  return form ? { form, example: media!.example, schema: media!.schema } : undefined;
}

/** What the walk's operations answered, by operationId: what a later one sends on (the upload form a file's ref answered). */
const answered = new Map<string, any>();

/** What the app login flow hands on: the page's cookie and form token, the code, the refresh token. */
const oauth: { cookie?: string; consentToken?: string; code?: string; refreshToken?: string } = {};

/** The app the walk registered: its client_id, and its secret as last answered (a rotation replaces it). */
function oauthApp(): { clientId: string; clientSecret: string } {
  const made = answered.get('createOAuthApp').oauthapp as { clientId: string; clientSecret: string };
  const rotated = answered.get('rotateOAuthAppSecret')?.oauthapp as { clientSecret?: string } | undefined;
  return { clientId: made.clientId, clientSecret: rotated?.clientSecret ?? made.clientSecret };
}

const appCredential = () => `Basic ${btoa(`${oauthApp().clientId}:${oauthApp().clientSecret}`)}`;

/** The authorize page's query as its example writes it, for the app the walk registered. */
async function authorizationQuery(operation: WalkOperation): Promise<Record<string, string>> {
  return { ...(await exampleQuery(operation)), client_id: oauthApp().clientId };
}

/**
 * Operations sent otherwise than as a JSON request: the upload's form is the one its ref answered,
 * with the bytes; joining a room is a WebSocket upgrade, answered 101.
 */
const SENDERS: Record<string, (operation: WalkOperation) => Promise<ApiResponse>> = {
  async uploadFile() {
    const ref = answered.get('createFileRef') as { url: string; params: Record<string, string> };
    const form = new FormData();
    for (const [name, value] of Object.entries(ref.params)) form.append(name, value);
    form.append('file', new Blob(['%PDF-1.4 an invoice'], { type: ref.params['Content-Type'] }), 'invoice-2026-11.pdf');
    return checkAnswer('POST', ref.url, await fetch(ref.url, { method: 'POST', body: form }));
  },
  // a room delivers its messages signed with the rooms' secret, naming the conversation by its token
  async receiveConversationMessages(operation) {
    const conversation = records.lastMade('conversations') as { token: string; contactId: number };
    const { conversationmessage } = bodyExample(operation)!.example as { conversationmessage: object };
    const text = JSON.stringify({
      conversationmessage: {
        ...conversationmessage,
        conversationToken: conversation.token,
        contactId: conversation.contactId,
        roomId: `walk-${site.id}`,
        sentAt: new Date().toISOString(),
      },
    });
    return api(operation.path, { method: 'POST', body: text, headers: await signatureHeaders(text) });
  },
  // the app login flow, as an app and its teammate's browser go through it (docs/oauth.md)
  async oauthAuthorizePage(operation) {
    const response = await fetch(
      `${inject('workerUrl')}${operation.path}?${new URLSearchParams(await authorizationQuery(operation))}`,
    );
    const page = await checkAnswer('GET', response.url, response);
    oauth.cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
    oauth.consentToken = /name="consent_token" value="([^"]+)"/.exec(page.text)?.[1];
    return page;
  },
  async oauthAuthorizeDecision(operation) {
    const { api_key: _key, consent_token: _token, ...form } = bodyExample(operation)!.example as Record<string, string>;
    const body = new URLSearchParams({
      ...form,
      ...(await authorizationQuery(operation)),
      api_key: keyFor('/v2/'),
      consent_token: oauth.consentToken ?? '',
    });
    const url = `${inject('workerUrl')}${operation.path}`;
    const response = await fetch(url, {
      method: 'POST',
      body,
      redirect: 'manual',
      headers: { cookie: oauth.cookie ?? '', 'sec-fetch-site': 'same-origin' },
    });
    oauth.code = new URL(response.headers.get('location') ?? 'x:').searchParams.get('code') ?? undefined;
    return checkAnswer('POST', url, response);
  },
  async oauthToken(operation) {
    const example = bodyExample(operation)!.example as Record<string, string>;
    const url = `${inject('workerUrl')}${operation.path}`;
    const response = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams({ ...example, code: oauth.code ?? '' }),
      headers: { authorization: appCredential() },
    });
    const answer = await checkAnswer('POST', url, response);
    oauth.refreshToken = answer.body?.refresh_token;
    return answer;
  },
  async oauthRevoke(operation) {
    const url = `${inject('workerUrl')}${operation.path}`;
    return checkAnswer(
      'POST',
      url,
      await fetch(url, {
        method: 'POST',
        body: new URLSearchParams({ token: oauth.refreshToken ?? '' }),
        headers: { authorization: appCredential() },
      }),
    );
  },
  async joinConversationRoom(operation) {
    const url = `${inject('workerUrl').replace(/^http/, 'ws')}${await filledPath(operation)}`;
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${keyFor('/v2/')}` } });
    const status = await new Promise<number>((resolve) => {
      socket.once('upgrade', (response) => resolve(response.statusCode ?? 0));
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.once('error', () => resolve(0));
    });
    socket.terminate();
    return { status, headers: new Headers(), body: undefined, text: '' };
  },
};

/** Sends an operation's example: its path, query and body filled with the walk's records and the world's stand-ins; `again` numbers a create's unique properties. */
async function send(operation: WalkOperation, again?: number) {
  const given = bodyExample(operation);
  const example = swapped(again === undefined ? given?.example : numbered(given?.example, again), world.sent);
  const body =
    given?.form === 'application/json'
      ? await resolvedBody(example, given.schema, doc, typeNamed, (type, written) => records.idOf(type, written))
      : example;
  await BEFORE_SENDING[operation.operation.operationId]?.(records, keyFor('/v2/'));
  const key = keyFor(operation.path, operation.operation.operationId);
  const headers: Record<string, string> =
    given && given.form !== 'application/json' ? { 'content-type': given.form } : {};
  return api(await filledPath(operation), {
    method: operation.method.toUpperCase(),
    key,
    headers,
    query: await exampleQuery(operation),
    body,
  });
}

/** A record a POST answered with, the last of its type from now on; its id. */
function remember(operation: WalkOperation, answer: unknown): number | undefined {
  if (operation.method !== 'post' || !answer || typeof answer !== 'object') return undefined;
  for (const [name, value] of Object.entries(answer)) {
    if (name === 'included' || name === 'meta' || !value || typeof value !== 'object' || Array.isArray(value)) continue;
    const id = (value as { id?: unknown }).id;
    if (typeof id !== 'number') continue;
    const type = typeNamed(name) ?? (isCreate(operation) ? typeUnder(operation.path) : `${name}s`);
    records.remember(type, id, value as Record<string, unknown>);
    return id;
  }
  return undefined;
}

describe('every example of the reference, sent in order', () => {
  it('answers each its documented success', async () => {
    const operations = ordered();
    const failures: string[] = [];
    const answers: Record<string, RecordedAnswer> = {};
    let sent = 0;
    for (const operation of operations) {
      const { operation: op, label } = operation;
      if (op.requestBody?.required && !bodyExample(operation)) {
        failures.push(`${label}: its body has no example`);
        continue;
      }
      let answer;
      try {
        answer = await (SENDERS[op.operationId]?.(operation) ?? send(operation));
      } catch (error) {
        failures.push(`${label}: ${(error as Error).message}`);
        continue;
      }
      sent += 1;
      const successes = Object.keys(op.responses)
        .map(Number)
        .filter((status) => status < 400);
      if (!successes.includes(answer.status)) {
        failures.push(`${label}: ${answer.status} ${answer.text.slice(0, 300)}`);
        continue;
      }
      remember(operation, answer.body);
      answered.set(op.operationId, answer.body);
      // a job started answers where it is (`Location: /v2/backgroundjobs/12.json`)
      const located = /^\/v2\/([a-z]+)\/(\d+)\.json$/.exec(answer.headers.get('location') ?? '');
      if (located) records.remember(located[1]!, Number(located[2]));
      // the document's own answer is not an example of itself
      if (
        !answer.text ||
        !(answer.headers.get('content-type') ?? '').includes('json') ||
        op.operationId === 'getOpenApiDocument'
      )
        continue;
      const params = sentParams.get(op.operationId);
      answers[op.operationId] = {
        status: answer.status,
        body: swapped(
          trimmedAnswer(answer.body),
          world.sent.map(([reader, standIn]) => [standIn, reader]),
        ) as unknown,
        ...(params && Object.keys(params).length ? { params } : {}),
      };
      const before = (recorded as Record<string, { body: unknown }>)[op.operationId];
      if (!RECORD && (!before || !sameShape(before.body, answer.body))) {
        failures.push(
          `${label}: ${before ? 'answers other properties than its recorded example' : 'has no recorded answer'}: run \`npm run examples\``,
        );
      }
    }
    if (RECORD)
      writeFileSync(
        ANSWERS_FILE,
        `${JSON.stringify(Object.fromEntries(Object.entries(answers).sort(([a], [b]) => a.localeCompare(b))), null, 1)}\n`,
      );
    expect(sent).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  }, 240_000);

  it('names in its tables only operations the document has', () => {
    const ids = new Set(walkOrder(doc).map((operation) => operation.operation.operationId));
    expect(
      [...Object.keys(CALLERS), ...Object.keys(AFTER), ...Object.values(AFTER)].filter((id) => !ids.has(id)),
    ).toEqual([]);
  });
});
