// Debian packages a test needs on the machine (Chromium, jq): installed once per machine by
// whichever test file asks first, as CI's clean machine has only what the repository installs.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { open, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** Installing a package may download ~100 MB (Chromium): give a hook this long. */
export const INSTALL_SETUP_TIMEOUT = 15 * 60_000;

const INSTALL_TIMEOUT = 14 * 60_000;
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
async function staleLock(lockFile: string): Promise<boolean> {
  try {
    const [holder, info] = await Promise.all([readFile(lockFile, 'utf8'), stat(lockFile)]);
    if (Date.now() - info.mtimeMs > INSTALL_TIMEOUT) return true;
    const pid = Number(holder);
    return pid > 0 && !alive(pid); // an empty lock was just taken: its holder is writing its pid
  } catch {
    return false; // gone meanwhile: the next attempt to take it tells
  }
}

async function install(binary: string, name: string): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${binary} is missing and only root may install it: run "apt-get update && apt-get install -y ${name}"`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const options = { env, timeout: INSTALL_TIMEOUT, maxBuffer: 64 * 1024 * 1024 };
  try {
    await run('apt-get', ['update'], options);
    await run('apt-get', ['install', '-y', '--no-install-recommends', name], options);
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(`installing ${name} failed: ${message}\n${stderr?.slice(-2000) ?? ''}`);
  }
  if (!existsSync(binary)) throw new Error(`apt-get installed ${name} but ${binary} is not there`);
}

/**
 * `binary` is there when this returns, Debian's package `name` installed if need be. All of apt's
 * installs of a run take turns on one lock file in the temporary folder, so apt's own lock is
 * never raced by the test files of one run.
 */
export async function ensureDebianPackage(binary: string, name: string): Promise<void> {
  const lockFile = path.join(os.tmpdir(), 'helpdesk-test-apt-install.lock');
  const until = Date.now() + INSTALL_TIMEOUT;
  while (!existsSync(binary)) {
    let lock;
    try {
      lock = await open(lockFile, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await staleLock(lockFile)) await rm(lockFile, { force: true });
      else if (Date.now() > until)
        throw new Error(`waited ${INSTALL_TIMEOUT / 60_000} minutes for another process to install ${name}`);
      else await sleep(1000);
      continue;
    }
    try {
      await lock.writeFile(String(process.pid));
      await lock.close();
      if (!existsSync(binary)) await install(binary, name);
    } finally {
      await rm(lockFile, { force: true });
    }
  }
}
