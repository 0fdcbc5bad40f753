/* Helpdesk chat widget. Embed: <script src="https://HOST/widget.js" data-form-token="FORM_TOKEN" async></script> */
// The script always ran strict; esbuild's IIFE of a module is not strict by itself, so say it.
'use strict';

import { HISTORY_ON_JOIN } from '../../realtime/room-limits';

/**
 * The chat widget, as the browser runs it (docs/widget.md): no dependencies, bundled by esbuild
 * to an ES2017 IIFE and served as `GET /widget.js` (scripts/build-assets.ts). One value is the
 * room's own: how many messages a welcome replays.
 *
 * Every piece of text that comes from a person (names, messages, the welcome) goes into the
 * page through `textContent` or an attribute, never through HTML.
 */

// ---- what it reads ---------------------------------------------------------------------------

declare global {
  interface Window {
    /** The form tokens whose widget this page already runs: a tag included twice does nothing. */
    __helpdeskWidgets?: Record<string, boolean>;
  }
}

/** A contact form's public settings, `GET /widget/forms/{formToken}.json` (src/widget/get-contact-form-settings.route.ts): the fields the widget reads. */
interface FormSettings {
  name: string;
  accentColor: string;
  triggerColor: string;
  theme: 'light' | 'dark';
  position: 'bottom-right' | 'bottom-left';
  isLiveChatEnabled: boolean;
  liveChatWelcomeMessage: string | null;
}

interface FormAnswer {
  contactform: FormSettings;
}

/** The new conversation: its token and its room's WebSocket address. */
interface Conversation {
  token: string;
  socketUrl: string;
}

/** The answer to `POST /v2/conversations.json` as the widget reads it: the conversation on a 201, else the API's error body; `{}` when it is not JSON. */
interface StartAnswer {
  conversation?: Conversation;
  errors?: Array<{ detail: string }>;
}

/** Why a conversation did not start, as the visitor reads it (never empty). */
type StartError =
  | `Please check the form: ${string}.`
  | 'Something went wrong; please try again.'
  | 'Could not reach the chat. Check your connection and try again.';

/** How starting a conversation went: started, live chat unavailable, or an error to show. */
type StartOutcome =
  | { token: string; socketUrl: string; unavailable?: undefined; error?: undefined }
  | { unavailable: true; error?: undefined }
  | { error: StartError; unavailable?: undefined };

/** What the widget keeps in localStorage, under `helpdesk-widget:<form token>`: its conversation, and whether the panel was open. */
interface Saved {
  token?: string;
  socketUrl?: string;
  open?: boolean;
}

/** Someone in the room (src/realtime/room-protocol.ts, `Participant`). */
interface Participant {
  role: 'contact' | 'agent';
  id: number;
  name: string;
}

/** A message's author. */
interface Author {
  /** `ai`: the assistant; `system`: the room's notice (the assistant handing over to a teammate) */
  type: 'contact' | 'agent' | 'ai' | 'system';
  id: number;
}

/** A message as the room sends it (`messageFrame`). */
interface ChatMessage {
  id: string;
  clientId: string | null;
  author: Author;
  message: string;
  sentAt: string;
}

/** A message gone: its id; the `clientId` when the room answers a resend of it. */
interface Deletion {
  id: string;
  clientId?: string | null;
}

interface WelcomeFrame {
  type: 'welcome';
  /** the room always sends it */
  conversation: { status: 'open' | 'closed' };
  you: Participant;
  present?: Participant[];
  history?: ChatMessage[];
}
interface MessageFrame extends ChatMessage {
  type: 'message';
}
interface EditedFrame extends ChatMessage {
  type: 'edited';
}
interface DeletedFrame extends Deletion {
  type: 'deleted';
}
interface PresenceFrame {
  type: 'presence';
  who?: Participant;
}
interface TypingFrame {
  type: 'typing';
  who?: Participant;
  typing: boolean;
}
interface StatusFrame {
  type: 'status';
  status: 'open' | 'closed';
}
interface ErrorFrame {
  type: 'error';
  code: string;
  detail: string;
  /** the refused message's, when it had one */
  clientId?: string | null;
}
/** Words of the assistant's answer as it writes them (`streamFrame`): its message follows with `clientId` = `stream`, or `done` when none does. */
interface StreamFrame {
  type: 'stream';
  stream: string;
  text?: string;
  done?: boolean;
}
/** The heartbeat's answer; nothing to do. */
interface PongFrame {
  type: 'pong';
}

/** What the room sends. */
type ServerFrame =
  | WelcomeFrame
  | MessageFrame
  | EditedFrame
  | DeletedFrame
  | PresenceFrame
  | TypingFrame
  | StatusFrame
  | ErrorFrame
  | StreamFrame
  | PongFrame;

/** A message of ours the room has not taken yet. */
interface Pending {
  text: string;
  item: HTMLLIElement;
}

/** A button in the notice line. */
interface NoticeAction {
  label: string;
  run: () => void;
}

/** `el`'s attributes: `text` is textContent, `on<event>` a listener, `true` an empty attribute; absent, null and false are left out. */
type AttributeValue = string | boolean | null | undefined | ((event: Event) => void);
type Attributes = Record<string, AttributeValue>;

// The script's own tag is only known while the script first runs: read it now.
const currentScript = document.currentScript || document.querySelector<HTMLScriptElement>('script[data-form-token]');

function main(script: HTMLOrSVGScriptElement | null): void {
  if (!script) return;
  const formToken = script.getAttribute('data-form-token') || '';
  const log = (text: string): void => {
    if (window.console) console.warn('[helpdesk widget] ' + text);
  };
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(formToken)) return log('data-form-token is missing or malformed');
  window.__helpdeskWidgets = window.__helpdeskWidgets || {};
  if (window.__helpdeskWidgets[formToken]) return; // included twice
  window.__helpdeskWidgets[formToken] = true;

  // The embed is an HTML <script> (an SVG one has no `src`).
  const api = new URL((script as HTMLScriptElement).src, location.href).origin;
  const STORAGE_KEY = 'helpdesk-widget:' + formToken;
  const HEARTBEAT_MS = 25000;
  const TYPING_SENT_EVERY_MS = 3000;
  const TYPING_IDLE_MS = 4000;
  const TYPING_SHOWN_MS = 8000;

  // ---- small helpers ---------------------------------------------------------------------

  /** An element: attrs are attributes, except text (textContent) and on<event> (listeners). */
  function el<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    attrs?: Attributes,
    children?: Array<Node | null>,
  ): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    const given = attrs || {};
    Object.keys(given).forEach((name) => {
      const value = given[name];
      if (value === undefined || value === null || value === false) return;
      if (name === 'text') node.textContent = String(value);
      else if (name.slice(0, 2) === 'on') node.addEventListener(name.slice(2), value as EventListener);
      else node.setAttribute(name, value === true ? '' : String(value));
    });
    (children || []).forEach((child) => {
      if (child) node.appendChild(child);
    });
    return node;
  }

  const ICONS = {
    chat: 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z',
    hide: 'M7.41 8.59 12 13.17l4.59-4.58L18 10l-6 6-6-6z',
  };

  function icon(name: keyof typeof ICONS): SVGSVGElement {
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('aria-hidden', 'true');
    const path = document.createElementNS(ns, 'path');
    path.setAttribute('d', ICONS[name]);
    svg.appendChild(path);
    return svg;
  }

  /** localStorage can throw (private modes, sandboxed frames): then the widget just forgets. */
  const storage = {
    read(): Saved | null {
      try {
        return JSON.parse(window.localStorage.getItem(STORAGE_KEY) || 'null') as Saved | null;
      } catch (e) {
        return null;
      }
    },
    write(value: Saved): void {
      try {
        window.localStorage.setItem(STORAGE_KEY, JSON.stringify(value));
      } catch (e) {
        /* not kept */
      }
    },
    clear(): void {
      try {
        window.localStorage.removeItem(STORAGE_KEY);
      } catch (e) {
        /* nothing kept */
      }
    },
  };

  function hexColor(value: unknown, fallback: string): string {
    return typeof value === 'string' && /^#[0-9a-fA-F]{6}$/.test(value) ? value : fallback;
  }

  /** Black or white, whichever reads better on the colour. */
  function textOn(color: string): string {
    const linear = (i: number): number => {
      const c = parseInt(color.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    };
    const rgb: [number, number, number] = [linear(1), linear(3), linear(5)];
    const luminance = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    return luminance > 0.45 ? '#111827' : '#ffffff';
  }

  function whenBodyReady(run: () => void): void {
    if (document.body) run();
    else document.addEventListener('DOMContentLoaded', run);
  }

  // ---- styles ------------------------------------------------------------------------------

  function styles(settings: FormSettings): string {
    const accent = hexColor(settings.accentColor, '#3b82f6');
    const trigger = hexColor(settings.triggerColor, accent);
    const dark = settings.theme === 'dark';
    const side = settings.position === 'bottom-left' ? 'left' : 'right';
    return [
      ':host { all: initial; }',
      '* { box-sizing: border-box; }',
      '.root { position: fixed; bottom: 20px; ' +
        side +
        ': 20px; z-index: 2147483000; display: flex; flex-direction: column;',
      '  align-items: ' + (side === 'left' ? 'flex-start' : 'flex-end') + '; gap: 12px;',
      '  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }',
      '.launcher { width: 56px; height: 56px; border-radius: 50%; border: 0; cursor: pointer; background: ' +
        trigger +
        ';',
      '  color: ' + textOn(trigger) + '; box-shadow: 0 4px 14px rgba(0,0,0,.25); display: grid; place-items: center; }',
      '.launcher svg { width: 28px; height: 28px; fill: currentColor; }',
      '.launcher:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible { outline: 2px solid ' +
        accent +
        '; outline-offset: 2px; }',
      '.panel { width: 340px; max-width: calc(100vw - 40px); height: 460px; max-height: calc(100vh - 110px); display: flex; flex-direction: column;',
      '  border-radius: 12px; overflow: hidden; box-shadow: 0 10px 30px rgba(0,0,0,.25);',
      '  background: ' + (dark ? '#1f2937' : '#ffffff') + '; color: ' + (dark ? '#f9fafb' : '#111827') + '; }',
      '.panel[hidden] { display: none; }',
      '.panel.compact { height: auto; }',
      '.header { display: flex; align-items: center; justify-content: space-between; padding: 12px 14px; background: ' +
        accent +
        '; color: ' +
        textOn(accent) +
        '; }',
      '.title { font-weight: 600; font-size: 15px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }',
      '.close { background: transparent; border: 0; color: inherit; font-size: 22px; line-height: 1; cursor: pointer; padding: 0 4px; }',
      '.body { flex: 1; display: flex; flex-direction: column; min-height: 0; }',
      '.scroll { flex: 1; overflow-y: auto; padding: 14px; display: flex; flex-direction: column; gap: 8px; }',
      '.welcome { margin: 0; padding: 10px 12px; border-radius: 10px; background: ' +
        (dark ? '#374151' : '#f3f4f6') +
        '; white-space: pre-wrap; overflow-wrap: anywhere; }',
      '.info { margin: 0; padding: 14px; color: ' + (dark ? '#d1d5db' : '#4b5563') + '; }',
      'form.start { display: flex; flex-direction: column; gap: 10px; padding: 14px; }',
      'label { display: flex; flex-direction: column; gap: 4px; font-size: 13px; font-weight: 500; }',
      'input, textarea { font: inherit; color: inherit; background: ' +
        (dark ? '#111827' : '#ffffff') +
        '; border: 1px solid ' +
        (dark ? '#4b5563' : '#d1d5db') +
        ';',
      '  border-radius: 8px; padding: 8px 10px; }',
      'button.primary { font: inherit; font-weight: 600; border: 0; border-radius: 8px; padding: 9px 14px; cursor: pointer; background: ' +
        accent +
        '; color: ' +
        textOn(accent) +
        '; }',
      'button.primary:disabled { opacity: .6; cursor: default; }',
      'button.link { font: inherit; background: none; border: 0; padding: 0; color: ' +
        accent +
        '; text-decoration: underline; cursor: pointer; }',
      '.error { margin: 0; color: #dc2626; font-size: 13px; }',
      '.error:empty { display: none; }',
      '.messages { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 8px; }',
      '.message { max-width: 80%; display: flex; flex-direction: column; gap: 2px; }',
      '.message.own { align-self: flex-end; align-items: flex-end; }',
      '.message.other { align-self: flex-start; }',
      '.who { font-size: 12px; color: ' + (dark ? '#9ca3af' : '#6b7280') + '; }',
      '.text { margin: 0; padding: 8px 11px; border-radius: 14px; white-space: pre-wrap; overflow-wrap: anywhere; }',
      '.own .text { background: ' + accent + '; color: ' + textOn(accent) + '; border-bottom-right-radius: 4px; }',
      '.other .text { background: ' + (dark ? '#374151' : '#f3f4f6') + '; border-bottom-left-radius: 4px; }',
      '.pending .text { opacity: .6; }',
      '.message.system { align-self: center; max-width: 90%; }',
      '.system .text { padding: 2px 8px; font-size: 12px; text-align: center; color: ' +
        (dark ? '#9ca3af' : '#6b7280') +
        '; }',
      '.failed .text { outline: 1px solid #dc2626; }',
      '.status { font-size: 12px; color: ' + (dark ? '#9ca3af' : '#6b7280') + '; }',
      '.failed .status { color: #dc2626; }',
      '.typing, .notice { margin: 0; padding: 0 14px 6px; font-size: 12px; color: ' +
        (dark ? '#9ca3af' : '#6b7280') +
        '; }',
      '.typing[hidden], .notice[hidden] { display: none; }',
      'form.composer { display: flex; gap: 8px; padding: 10px; border-top: 1px solid ' +
        (dark ? '#374151' : '#e5e7eb') +
        '; }',
      'form.composer textarea { flex: 1; resize: none; height: 40px; }',
    ].join('\n');
  }

  // ---- the widget ----------------------------------------------------------------------------

  function start(settings: FormSettings): void {
    const host = el('div', { 'data-helpdesk-widget': formToken });
    const shadow = host.attachShadow({ mode: 'open' });
    shadow.appendChild(el('style', { text: styles(settings) }));

    const saved = storage.read();
    let panelOpen = Boolean(saved && saved.open);
    const launcher = el(
      'button',
      {
        class: 'launcher',
        type: 'button',
        'aria-label': 'Open chat',
        'aria-expanded': 'false',
        onclick: () => {
          setOpen(!panelOpen);
        },
      },
      [icon('chat')],
    );
    const body = el('div', { class: 'body' });
    const panel = el(
      'section',
      { class: 'panel', role: 'dialog', 'aria-label': 'Chat with ' + settings.name, hidden: true },
      [
        el('div', { class: 'header' }, [
          el('span', { class: 'title', text: settings.name }),
          el('button', {
            class: 'close',
            type: 'button',
            'aria-label': 'Close chat',
            text: '\u00d7',
            onclick: () => {
              setOpen(false);
            },
          }),
        ]),
        body,
      ],
    );
    shadow.appendChild(el('div', { class: 'root' }, [panel, launcher]));
    document.body.appendChild(host);

    function remember(changes: Saved): void {
      const current = storage.read();
      if (!current) return;
      (Object.keys(changes) as Array<keyof Saved>).forEach(<K extends keyof Saved>(key: K) => {
        current[key] = changes[key];
      });
      storage.write(current);
    }

    function setOpen(open: boolean): void {
      panelOpen = open;
      panel.hidden = !open;
      launcher.setAttribute('aria-expanded', String(open));
      launcher.setAttribute('aria-label', open ? 'Hide chat' : 'Open chat');
      // the launcher always holds its icon
      launcher.replaceChild(icon(open ? 'hide' : 'chat'), launcher.firstChild!);
      remember({ open: open });
      if (open) {
        const focus = body.querySelector<HTMLInputElement | HTMLTextAreaElement>('input, textarea');
        if (focus) focus.focus();
      }
    }

    /** Shows a state of the panel; a short notice (compact) gets a panel its own size. */
    function show(children: Node[], compact?: boolean): void {
      panel.classList.toggle('compact', Boolean(compact));
      while (body.firstChild) body.removeChild(body.firstChild);
      children.forEach((child) => {
        body.appendChild(child);
      });
    }

    function welcomeNote(): HTMLParagraphElement | null {
      return settings.liveChatWelcomeMessage
        ? el('p', { class: 'welcome', text: settings.liveChatWelcomeMessage })
        : null;
    }

    function showUnavailable(): void {
      show(
        [
          el('p', {
            class: 'info',
            role: 'status',
            text: 'Live chat is not available right now. Please come back later.',
          }),
        ],
        true,
      );
    }

    function showStartForm(note?: string): void {
      const error = el('p', { class: 'error', role: 'alert' });
      const button = el('button', { class: 'primary', type: 'submit', text: 'Start chat' });
      const form = el('form', { class: 'start', novalidate: true }, [
        welcomeNote(),
        note ? el('p', { class: 'error', role: 'alert', text: note }) : null,
        el('label', {}, [
          document.createTextNode('Your name'),
          el('input', { name: 'name', required: true, maxlength: '255', autocomplete: 'name' }),
        ]),
        el('label', {}, [
          document.createTextNode('Email'),
          el('input', { name: 'email', type: 'email', required: true, maxlength: '254', autocomplete: 'email' }),
        ]),
        error,
        button,
      ]);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        // the two inputs built just above
        const nameInput = form.elements.namedItem('name') as HTMLInputElement;
        const emailInput = form.elements.namedItem('email') as HTMLInputElement;
        const name = nameInput.value.trim();
        const email = emailInput.value.trim();
        if (!name) return void (error.textContent = 'Please tell us your name.');
        if (!email || !emailInput.checkValidity())
          return void (error.textContent = 'Please enter a valid email address.');
        error.textContent = '';
        button.disabled = true;
        startConversation(name, email).then((outcome) => {
          button.disabled = false;
          if (outcome.unavailable) return showUnavailable();
          if (outcome.error) return void (error.textContent = outcome.error);
          storage.write({ token: outcome.token, socketUrl: outcome.socketUrl, open: true });
          openChat(outcome);
        });
      });
      show([el('div', { class: 'scroll' }, [form])]);
    }

    /** POST /v2/conversations.json with the form's token: the new conversation's token and room, or why not. */
    function startConversation(name: string, email: string): Promise<StartOutcome> {
      return fetch(api + '/v2/conversations.json', {
        method: 'POST',
        headers: { authorization: 'Bearer ' + formToken, 'content-type': 'application/json' },
        body: JSON.stringify({ conversation: { contact: { name: name, email: email } } }),
      }).then(
        (response): Promise<StartOutcome> => {
          return response
            .json()
            .catch(() => ({}))
            .then((body: StartAnswer | null): StartOutcome => {
              // a 201 carries the conversation; one that does not (a proxy's page) is a failure to try again
              const created = body && body.conversation;
              if (response.status === 201 && created && created.token && created.socketUrl)
                return { token: created.token, socketUrl: created.socketUrl };
              if (response.status === 403 || response.status === 401) return { unavailable: true };
              const first = body && body.errors && body.errors[0];
              return {
                error:
                  response.status === 400 && first
                    ? `Please check the form: ${first.detail}.`
                    : 'Something went wrong; please try again.',
              };
            });
        },
        (): StartOutcome => {
          return { error: 'Could not reach the chat. Check your connection and try again.' };
        },
      );
    }

    // ---- the conversation ------------------------------------------------------------------

    function openChat(conversation: Conversation): void {
      let you: Participant | null = null;
      const names: Record<string, string> = {}; // "agent:7" -> "Ada Lovelace", from the room's presence
      const rendered: Record<string, HTMLLIElement | null> = {}; // message id -> its item; null once deleted
      const pending: Record<string, Pending> = {}; // clientId -> { text, item }
      const streaming: Record<string, HTMLLIElement> = {}; // the assistant's answer being written -> its item
      let socket: WebSocket | null = null;
      let failures = 0;
      let closed = false; // the conversation, by an agent
      let stopped = false; // this chat, by the visitor starting anew
      // timers start undefined (the script had null): clearTimeout and clearInterval take number | undefined
      let heartbeat: number | undefined = undefined;
      let reconnectTimer: number | undefined = undefined;
      let typingSentAt = 0;
      let typingIdle: number | undefined = undefined;
      let typingShown: number | undefined = undefined;
      let counter = 0;

      const messages = el('ol', { class: 'messages', 'aria-live': 'polite' });
      const scroll = el('div', { class: 'scroll' }, [welcomeNote(), messages]);
      const typing = el('p', { class: 'typing', hidden: true });
      const notice = el('p', { class: 'notice', role: 'status', hidden: true });
      const input = el('textarea', {
        name: 'message',
        rows: '1',
        maxlength: '10000',
        placeholder: 'Write a message\u2026',
        'aria-label': 'Message',
      });
      const sendButton = el('button', { class: 'primary', type: 'submit', text: 'Send' });
      const composer = el('form', { class: 'composer' }, [input, sendButton]);
      show([scroll, typing, notice, composer]);

      function setNotice(text: string, action?: NoticeAction | null): void {
        while (notice.firstChild) notice.removeChild(notice.firstChild);
        notice.hidden = !text;
        if (!text) return;
        notice.appendChild(document.createTextNode(text + ' '));
        if (action)
          notice.appendChild(el('button', { class: 'link', type: 'button', text: action.label, onclick: action.run }));
      }

      const startAnew: NoticeAction = {
        label: 'Start a new conversation',
        run: () => {
          stopped = true;
          clearTimeout(reconnectTimer);
          clearInterval(heartbeat);
          if (socket) socket.close(1000, 'new conversation');
          storage.clear();
          showStartForm();
        },
      };

      function setClosed(isClosed: boolean): void {
        closed = isClosed;
        input.disabled = isClosed;
        sendButton.disabled = isClosed;
        if (isClosed) setNotice('This conversation has ended.', startAnew);
        else setNotice('');
      }

      function authorKey(author: Author): string {
        return author.type + ':' + author.id;
      }

      function isOwn(author: Author): boolean {
        return !!you && author.type === you.role && author.id === you.id;
      }

      function authorName(author: Author): string {
        if (author.type === 'ai') return 'Assistant';
        return names[authorKey(author)] || (author.type === 'agent' ? 'Support' : 'Visitor');
      }

      function scrollDown(): void {
        scroll.scrollTop = scroll.scrollHeight;
      }

      function messageItem(text: string, own: boolean, who: string, system?: boolean): HTMLLIElement {
        if (system) return el('li', { class: 'message system' }, [el('p', { class: 'text', text: text })]);
        return el('li', { class: 'message ' + (own ? 'own' : 'other') }, [
          own ? null : el('span', { class: 'who', text: who }),
          el('p', { class: 'text', text: text }),
        ]);
      }

      // Below, `mine` is only ever set when the frame's clientId is, and every item has its .text.

      /** A message the room accepted: the acknowledgement of one of ours, or someone's new one. */
      function received(message: ChatMessage): void {
        if (message.id in rendered) return;
        const mine = message.clientId && pending[message.clientId];
        if (mine && isOwn(message.author)) {
          delete pending[message.clientId!];
          rendered[message.id] = mine.item;
          mine.item.querySelector('.text')!.textContent = message.message; // as a teammate may have corrected it meanwhile
          mine.item.classList.remove('pending', 'failed');
          const status = mine.item.querySelector('.status');
          if (status) status.remove();
          mine.item.setAttribute('data-id', message.id);
          mine.item.title = new Date(message.sentAt).toLocaleString();
          return;
        }
        const written = message.clientId ? streaming[message.clientId] : undefined;
        const item =
          written ||
          messageItem(
            message.message,
            isOwn(message.author),
            authorName(message.author),
            message.author.type === 'system',
          );
        if (written) {
          // the assistant's words as they came become its answer as stored
          delete streaming[message.clientId!];
          item.classList.remove('streaming');
          item.querySelector('.text')!.textContent = message.message;
        }
        rendered[message.id] = item;
        item.setAttribute('data-id', message.id);
        item.title = new Date(message.sentAt).toLocaleString();
        // Ours wait at the bottom until the room takes them.
        const firstPending = messages.querySelector('.pending');
        messages.insertBefore(item, firstPending);
        if (!isOwn(message.author)) hideTyping();
        scrollDown();
      }

      /** Words of the assistant's answer as it writes them; taken away when no answer follows. */
      function streamed(frame: StreamFrame): void {
        let item = streaming[frame.stream];
        if (frame.done) {
          if (item) item.remove();
          delete streaming[frame.stream];
          return;
        }
        if (!item) {
          item = streaming[frame.stream] = messageItem('', false, 'Assistant');
          item.classList.add('streaming');
          messages.insertBefore(item, messages.querySelector('.pending'));
          hideTyping();
        }
        item.querySelector('.text')!.textContent += frame.text || '';
        scrollDown();
      }

      /** A message a teammate corrected: its new text. */
      function edited(message: ChatMessage): void {
        const item = rendered[message.id];
        if (item) item.querySelector('.text')!.textContent = message.message;
      }

      /** A message a teammate deleted: gone; a resend of ours the room answers so is settled. */
      function deleted(frame: Deletion): void {
        const item = rendered[frame.id];
        if (item) item.remove();
        rendered[frame.id] = null;
        const mine = frame.clientId && pending[frame.clientId];
        if (!mine) return;
        delete pending[frame.clientId!];
        mine.item.remove();
      }

      /**
       * The welcome's history, the room's last messages as they stand now: what changed while we
       * were away changes here too. A message shown but not among them was deleted, unless the
       * history is full and the message older than its first.
       */
      function rejoined(history: ChatMessage[]): void {
        const now: Record<string, boolean> = {};
        history.forEach((message) => {
          now[message.id] = true;
        });
        // a full history has a first (HISTORY_ON_JOIN is positive)
        const first = history.length < HISTORY_ON_JOIN ? 0 : Number(history[0]!.id);
        Object.keys(rendered).forEach((id) => {
          if (rendered[id] && !now[id] && Number(id) >= first) deleted({ id: id });
        });
        history.forEach((message) => {
          if (rendered[message.id]) edited(message);
          else received(message);
        });
        // an answer whose end was missed while away: its message, if kept, was among the history
        Object.keys(streaming).forEach((stream) => streamed({ type: 'stream', stream: stream, done: true }));
      }

      function send(text: string): void {
        const clientId =
          'w-' + Date.now().toString(36) + '-' + (counter += 1) + '-' + Math.random().toString(36).slice(2, 8);
        const item = messageItem(text, true, '');
        item.classList.add('pending');
        item.appendChild(el('span', { class: 'status', text: 'Sending\u2026' }));
        messages.appendChild(item);
        pending[clientId] = { text: text, item: item };
        scrollDown();
        transmit(clientId);
        stopTyping();
      }

      /** Sends, or resends after a reconnect: the room answers a known clientId without storing it twice. */
      function transmit(clientId: string): void {
        // called only with a clientId that is pending
        if (socket && socket.readyState === 1)
          socket.send(JSON.stringify({ type: 'message', message: pending[clientId]!.text, clientId: clientId }));
      }

      function refused(frame: ErrorFrame): void {
        if (frame.code === 'conversation_closed') setClosed(true);
        const mine = frame.clientId && pending[frame.clientId];
        if (!mine) return;
        delete pending[frame.clientId!];
        mine.item.classList.remove('pending');
        mine.item.classList.add('failed');
        const status = mine.item.querySelector('.status');
        if (status)
          status.textContent =
            'Not sent: ' + (frame.code === 'conversation_closed' ? 'the conversation has ended' : frame.detail);
      }

      function showTyping(who: Partial<Participant>): void {
        typing.textContent =
          (who.role === 'agent' ? who.name || 'Support' : who.name || 'Someone') + ' is typing\u2026';
        typing.hidden = false;
        clearTimeout(typingShown);
        typingShown = setTimeout(hideTyping, TYPING_SHOWN_MS);
      }

      function hideTyping(): void {
        typing.hidden = true;
        clearTimeout(typingShown);
      }

      function sendTyping(value: boolean): void {
        if (socket && socket.readyState === 1) socket.send(JSON.stringify({ type: 'typing', typing: value }));
      }

      function stopTyping(): void {
        clearTimeout(typingIdle);
        if (typingSentAt) sendTyping(false);
        typingSentAt = 0;
      }

      input.addEventListener('input', () => {
        if (!input.value.trim()) return stopTyping();
        if (Date.now() - typingSentAt > TYPING_SENT_EVERY_MS) {
          typingSentAt = Date.now();
          sendTyping(true);
        }
        clearTimeout(typingIdle);
        typingIdle = setTimeout(stopTyping, TYPING_IDLE_MS);
      });
      input.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
          event.preventDefault();
          composer.requestSubmit();
        }
      });
      composer.addEventListener('submit', (event) => {
        event.preventDefault();
        const text = input.value.trim();
        if (!text || closed) return;
        input.value = '';
        send(text);
      });

      function onFrame(frame: ServerFrame): void {
        if (frame.type === 'welcome') {
          failures = 0;
          setNotice('');
          you = frame.you;
          (frame.present || []).forEach((who) => {
            names[who.role + ':' + who.id] = who.name;
          });
          rejoined(frame.history || []);
          Object.keys(pending).forEach(transmit);
          setClosed(frame.conversation && frame.conversation.status === 'closed');
        } else if (frame.type === 'message') {
          received(frame);
        } else if (frame.type === 'edited') {
          edited(frame);
        } else if (frame.type === 'deleted') {
          deleted(frame);
        } else if (frame.type === 'presence') {
          if (frame.who) names[frame.who.role + ':' + frame.who.id] = frame.who.name;
        } else if (frame.type === 'typing') {
          const who: Partial<Participant> = frame.who || {};
          if (you && who.role === you.role && who.id === you.id) return; // the visitor, in another tab
          if (frame.typing) showTyping(who);
          else hideTyping();
        } else if (frame.type === 'status') {
          setClosed(frame.status === 'closed');
        } else if (frame.type === 'error') {
          refused(frame);
        } else if (frame.type === 'stream') {
          streamed(frame);
        }
      }

      function connect(): void {
        if (stopped) return;
        let opened = false;
        socket = new WebSocket(conversation.socketUrl);
        socket.addEventListener('open', () => {
          opened = true;
          clearInterval(heartbeat);
          // the socket this connect opened, or a later one: never null again
          heartbeat = setInterval(() => {
            if (socket!.readyState === 1) socket!.send('{"type":"ping"}');
          }, HEARTBEAT_MS);
        });
        socket.addEventListener('message', (event) => {
          let frame: ServerFrame;
          try {
            frame = JSON.parse(event.data as string) as ServerFrame;
          } catch (e) {
            return;
          }
          onFrame(frame);
        });
        socket.addEventListener('close', () => {
          clearInterval(heartbeat);
          if (stopped) return;
          failures = opened ? 1 : failures + 1;
          // A room that refuses us again and again may be gone (or the network is): let the visitor choose.
          setNotice('Reconnecting\u2026', failures >= 3 ? startAnew : null);
          reconnectTimer = setTimeout(connect, Math.min(30000, 1000 * Math.pow(2, failures - 1)));
        });
      }

      connect();
      setOpen(panelOpen);
    }

    if (!settings.isLiveChatEnabled) showUnavailable();
    else if (saved && saved.token && saved.socketUrl) openChat({ token: saved.token, socketUrl: saved.socketUrl });
    else showStartForm();
    setOpen(panelOpen);
  }

  fetch(api + '/widget/forms/' + encodeURIComponent(formToken) + '.json')
    .then((response): void | Promise<void> => {
      if (response.status === 404) return log('no contact form has the token ' + formToken);
      if (!response.ok) return log('could not load the contact form (' + response.status + ')');
      return response.json().then((body: FormAnswer) => {
        whenBodyReady(() => {
          start(body.contactform);
        });
      });
    })
    .catch((error: unknown) => {
      log('could not load the contact form: ' + error);
    });
}

main(currentScript);
