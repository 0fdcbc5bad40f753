import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { open, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium: `apt-get install chromium`. playwright-core drives it; it downloads no browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

/** Installing Chromium downloads ~100 MB: give a hook this long (`beforeAll(fn, BROWSER_SETUP_TIMEOUT)`). */
export const BROWSER_SETUP_TIMEOUT = 15 * 60_000;

const INSTALL_TIMEOUT = 14 * 60_000;
const LOCK = path.join(os.tmpdir(), 'helpdesk-test-chromium-install.lock');
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's holder died, or has held it longer than an install may take: its lock is void. */
async function staleLock(): Promise<boolean> {
  try {
    const [holder, info] = await Promise.all([readFile(LOCK, 'utf8'), stat(LOCK)]);
    if (Date.now() - info.mtimeMs > INSTALL_TIMEOUT) return true;
    const pid = Number(holder);
    return pid > 0 && !alive(pid); // an empty lock was just taken: its holder is writing its pid
  } catch {
    return false; // gone meanwhile: the next attempt to take it tells
  }
}

async function install(): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new Error(`${CHROMIUM} is missing and only root may install it: run "apt-get update && apt-get install -y chromium"`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const options = { env, timeout: INSTALL_TIMEOUT, maxBuffer: 64 * 1024 * 1024 };
  try {
    await run('apt-get', ['update'], options);
    await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], options);
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(`installing chromium failed: ${message}\n${stderr?.slice(-2000) ?? ''}`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is not there`);
}

/**
 * Chromium is there when this returns: installed once per machine by whichever test file asks
 * first (a lock file in the temporary folder makes the others of the run wait for it, and
 * apt's own lock is never raced).
 */
export async function ensureChromium(): Promise<void> {
  const until = Date.now() + INSTALL_TIMEOUT;
  while (!existsSync(CHROMIUM)) {
    let lock;
    try {
      lock = await open(LOCK, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await staleLock()) await rm(LOCK, { force: true });
      else if (Date.now() > until) throw new Error(`waited ${INSTALL_TIMEOUT / 60_000} minutes for another process to install chromium`);
      else await sleep(1000);
      continue;
    }
    try {
      await lock.writeFile(String(process.pid));
      await lock.close();
      if (!existsSync(CHROMIUM)) await install();
    } finally {
      await rm(LOCK, { force: true });
    }
  }
}

/** A headless Chromium, installed first if need be. Close it in `afterAll`. */
export async function launchBrowser(): Promise<Browser> {
  await ensureChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      // The tests run as root, where Chromium's sandbox cannot start.
      '--no-sandbox',
      // Software rendering in one colour profile, without subpixel text: the same pixels every
      // run, so docs/widget.png changes only when the widget does.
      '--disable-gpu',
      '--force-color-profile=srgb',
      '--disable-partial-raster',
      '--disable-lcd-text',
    ],
  });
}
