/**
 * The reference page's script (Scalar), pinned with package.json: a new version is a new address,
 * so the script is cached for good. `scripts/build-assets.ts` puts the installed one there and
 * refuses to build when the two disagree.
 */
export const SCALAR_VERSION = '1.72.1';
export const SCALAR_PATH = `/v2/docs/scalar-${SCALAR_VERSION}.js`;
