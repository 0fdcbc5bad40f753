// The model's stand-in (scripts/stack/ai-model-stand-in.ts) as tests drive it, and the help-centre
// articles its prompts are given.
import { expect, inject } from 'vitest';
import { api } from './api';

export interface ModelRequest {
  model: string;
  stream?: boolean;
  messages: { role: string; content: string }[];
}

const control = () => inject('aiModelControlUrl');

/** The requests the model received whose prompt holds `marker`. */
export async function modelRequests(marker: string): Promise<ModelRequest[]> {
  return (await fetch(`${control()}/requests?match=${encodeURIComponent(marker)}`)).json() as Promise<ModelRequest[]>;
}

/** How the model answers its next requests whose prompt holds `marker` (a status, a stall, slow chunks, a text). */
export async function planModel(marker: string, answers: Record<string, unknown>[]): Promise<void> {
  const response = await fetch(`${control()}/plan`, {
    method: 'POST',
    body: JSON.stringify({ match: marker, answers }),
  });
  expect(response.status).toBe(200);
}

/** A request's whole prompt, each message after its role. */
export const promptOf = (request: ModelRequest) => request.messages.map((m) => `[${m.role}] ${m.content}`).join('\n');

/** A new help-doc site (`publicSiteEnabled`: its articles are the chat assistant's to use). */
export async function newHelpSite(key: string, properties: Record<string, unknown> = {}): Promise<number> {
  const made = await api('/v2/helpdocssites.json', {
    method: 'POST',
    key,
    body: { helpdocssite: { name: `Help ${Math.random().toString(36).slice(2, 8)}`, ...properties } },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.helpdocssite.id as number;
}

/** A new article of the site (`body`: title, contents, status, isPrivate...). */
export async function newArticle(key: string, helpSite: number, body: Record<string, unknown>): Promise<number> {
  const made = await api('/v2/helpdocssites/helpdocarticles.json', {
    method: 'POST',
    key,
    body: { helpDocArticle: { helpdocsite: { id: helpSite }, ...body } },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.helpDocArticle.id as number;
}
